// The Home Assistant panel's transport: the integration's websocket command, which
// answers the same {status, body} as the REST API.
const RESUBSCRIBE_MS = 3000;
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024 - 1024;
// One part of a large import: at most 3 bytes a character in UTF-8, and escapes,
// stay well within one message.
const CHUNK_CHARS = 512 * 1024;

export class HaTransport {
  constructor(hass) {
    this.hass = hass;
    this.needsToken = false;
    // What the view follows: every change and every conversation's turns.
    this.subscription = "assist_memory/subscribe";
  }

  // Home Assistant's users by name (a memory's scope is a user's id): the person's
  // name and picture when the user has a person, else the user's own name.
  async people() {
    return (await this.hass.callWS({ type: "assist_memory/people" })).people;
  }

  // A device's name as people call it (Home Assistant's device registry).
  deviceName(id) {
    const device = this.hass.devices?.[id];
    return device ? device.name_by_user || device.name : null;
  }

  // Who speaks at which voice device, and the held facts' device names.
  speakers() {
    return this.hass.callWS({ type: "assist_memory/held/list" }).catch(() => null);
  }

  // Calls `onChange` after every change of the memories and every turn; subscribes
  // again when the integration reloads (its last event says `ended`) or is not
  // loaded yet.
  async subscribe(onChange) {
    const again = () => setTimeout(() => this.subscribe(onChange), RESUBSCRIBE_MS);
    try {
      await this.hass.connection.subscribeMessage((event) => {
        onChange();
        if (event.ended) again();
      }, { type: this.subscription });
    } catch {
      again();
    }
  }

  async request(method, path, query = {}, body = undefined) {
    const message = { type: "assist_memory/request", method, path, query };
    if (body !== undefined) message.body = body;
    try {
      // Home Assistant closes a websocket that receives a message over 4 MiB: an
      // import that large is sent in parts; any other body that large is refused
      // here, as the REST API would (413).
      if (body !== undefined && new Blob([JSON.stringify(message)]).size > MAX_MESSAGE_BYTES) {
        if (method === "POST" && path === "/memory/import") return await this.upload(body);
        return { status: 413, body: { code: "body_too_large" } };
      }
      return await this.hass.callWS(message);
    } catch (err) {
      // Not loaded, not an admin, or the connection dropped (a number: the websocket
      // library's own codes, such as 3 for a lost connection).
      if (typeof err?.code === "number") return { status: 0, body: { code: "offline" } };
      const status = { unauthorized: 403, body_too_large: 413 }[err?.code] ?? 500;
      return { status, body: { error: err?.message ?? String(err), code: err?.code } };
    }
  }

  // An import's body in parts (begin, chunks, commit): answered as the REST API
  // answers the import. A part never ends inside a character's surrogate pair.
  async upload(body) {
    const text = JSON.stringify(body);
    const { upload_id: uploadId } = await this.hass.callWS({
      type: "assist_memory/import/begin", size: new Blob([text]).size,
    });
    for (let start = 0; start < text.length;) {
      let end = Math.min(start + CHUNK_CHARS, text.length);
      const last = text.charCodeAt(end - 1);
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
      await this.hass.callWS({
        type: "assist_memory/import/chunk", upload_id: uploadId, data: text.slice(start, end),
      });
      start = end;
    }
    return this.hass.callWS({ type: "assist_memory/import/commit", upload_id: uploadId });
  }
}

// The Home Assistant panel's transport: the integration's websocket command, which
// answers the same {status, body} as the REST API.
const RESUBSCRIBE_MS = 3000;
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024 - 1024;

export class HaTransport {
  constructor(hass) {
    this.hass = hass;
    this.needsToken = false;
  }

  // Home Assistant's people who have a user: a memory's scope is that user's id.
  people() {
    return Object.values(this.hass.states ?? {})
      .filter((state) => state.entity_id.startsWith("person.") && state.attributes.user_id)
      .map((state) => ({
        id: state.attributes.user_id,
        name: state.attributes.friendly_name ?? state.entity_id,
        picture: state.attributes.entity_picture ?? null,
      }));
  }

  // Calls `onChange` after every change of the memories; subscribes again when the
  // integration reloads (its last event says `ended`) or is not loaded yet.
  async subscribe(onChange) {
    const again = () => setTimeout(() => this.subscribe(onChange), RESUBSCRIBE_MS);
    try {
      await this.hass.connection.subscribeMessage((event) => {
        onChange();
        if (event.ended) again();
      }, { type: "assist_memory/subscribe" });
    } catch {
      again();
    }
  }

  async request(method, path, query = {}, body = undefined) {
    const message = { type: "assist_memory/request", method, path, query };
    if (body !== undefined) message.body = body;
    // Home Assistant closes a websocket that receives a message over 4 MiB: a
    // body that large is refused here, as the REST API would (413).
    if (body !== undefined && new Blob([JSON.stringify(message)]).size > MAX_MESSAGE_BYTES) {
      return { status: 413, body: { code: "body_too_large" } };
    }
    try {
      return await this.hass.callWS(message);
    } catch (err) {
      // Not loaded, not an admin, or the connection dropped (a number: the websocket
      // library's own codes, such as 3 for a lost connection).
      if (typeof err?.code === "number") return { status: 0, body: { code: "offline" } };
      const status = err?.code === "unauthorized" ? 403 : 500;
      return { status, body: { error: err?.message ?? String(err), code: err?.code } };
    }
  }
}

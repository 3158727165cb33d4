// The Home Assistant panel's transport: the integration's websocket command, which
// answers the same {status, body} as the REST API.
export class HaTransport {
  constructor(hass) {
    this.hass = hass;
    this.needsToken = false;
  }

  async request(method, path, query = {}, body = undefined) {
    const message = { type: "assist_memory/request", method, path, query };
    if (body !== undefined) message.body = body;
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

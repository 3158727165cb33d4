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
      // Not loaded, not an admin, or the connection dropped.
      return { status: 500, body: { error: err?.message ?? String(err), code: err?.code } };
    }
  }
}

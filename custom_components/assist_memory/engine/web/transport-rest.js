// The standalone server's and the add-on's transport: fetch with RELATIVE URLs, so it
// works below the ingress prefix (/api/hassio_ingress/<token>/). The bearer token comes
// from the URL fragment (#token=...) once and is kept in sessionStorage: it goes when
// the tab closes, and other tabs and pages of the site never see it. Under ingress
// none is needed (the proxy is trusted).
const TOKEN_KEY = "assist-memory-token";
const RECONNECT_MS = 3000;

// Calls `onChange` for each `changed` event of a server-sent event stream, until it ends.
async function readEvents(body, onChange) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += value;
    const events = buffered.split("\n\n");
    buffered = events.pop();
    if (events.some((event) => event.split("\n").includes("event: changed"))) onChange();
  }
}

export class RestTransport {
  constructor(base = document.baseURI) {
    this.base = base;
    this.needsToken = false;
    // The token given was refused (not merely missing): the prompt says so.
    this.tokenRefused = false;
    // An earlier version kept the token in localStorage: move it, leave no copy.
    const kept = localStorage.getItem(TOKEN_KEY);
    if (kept !== null) {
      localStorage.removeItem(TOKEN_KEY);
      if (!this.token) this.setToken(kept);
    }
    const fragment = new URLSearchParams(location.hash.slice(1));
    if (fragment.has("token")) {
      this.setToken(fragment.get("token"));
      history.replaceState(null, "", location.pathname + location.search);
    }
  }

  get token() { return sessionStorage.getItem(TOKEN_KEY) ?? ""; }

  setToken(token) {
    sessionStorage.setItem(TOKEN_KEY, token.trim());
    this.needsToken = false;
  }

  // Calls `onChange` after every change of the memories: the server's event stream
  // (read with fetch, which can send the token), opened again when it ends.
  async subscribe(onChange) {
    for (;;) {
      try {
        const headers = this.token ? { Authorization: `Bearer ${this.token}` } : {};
        const response = await fetch(new URL("memory/events", this.base), { headers });
        if (response.ok) await readEvents(response.body, onChange);
      } catch {
        // Offline or stopped: try again shortly.
      }
      await new Promise((resolve) => { setTimeout(resolve, RECONNECT_MS); });
    }
  }

  async request(method, path, query = {}, body = undefined) {
    const url = new URL(path.replace(/^\//, ""), this.base);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    const headers = { Accept: "application/json" };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let response;
    try {
      response = await fetch(url, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      // Offline, or the server is not running: nothing answered at all.
      return { status: 0, body: { code: "offline" } };
    }
    if (response.status === 401) {
      this.needsToken = true;
      this.tokenRefused = Boolean(this.token);
    }
    const text = await response.text();
    let parsed = null;
    try { parsed = text ? JSON.parse(text) : null; } catch { parsed = { error: text }; }
    return { status: response.status, body: parsed };
  }
}

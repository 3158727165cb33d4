// The standalone server's and the add-on's transport: fetch with RELATIVE URLs, so it
// works below the ingress prefix (/api/hassio_ingress/<token>/). The bearer token comes
// from the URL fragment (#token=...) once and is kept in sessionStorage: it goes when
// the tab closes, and other tabs and pages of the site never see it. Under ingress
// none is needed (the proxy is trusted).
const TOKEN_KEY = "assist-memory-token";

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

// The REST API as the UI uses it, over a transport (REST in the browser, websocket in
// Home Assistant). Every call answers the body, or throws ApiError with the
// status (0: the server could not be reached), the server's code and placeholders.
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error ?? body?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.code ?? null;
    this.placeholders = body?.placeholders ?? {};
  }
}

export class MemoryApi {
  constructor(transport) {
    this.transport = transport;
  }

  async call(method, path, { query, body } = {}) {
    const cleanQuery = Object.fromEntries(
      Object.entries(query ?? {}).filter(([, value]) => value !== "" && value != null)
        .map(([name, value]) => [name, String(value)]));
    const answer = await this.transport.request(method, path, cleanQuery, body);
    if (answer.status === 0 || answer.status >= 400) throw new ApiError(answer.status, answer.body);
    return answer.body;
  }

  list(query) { return this.call("GET", "/memory/long-term", { query }); }
  add(memory) { return this.call("POST", "/memory/long-term", { body: memory }); }
  // Puts memories back exactly as they were (ids, times, provenance): an undo.
  restore(memories) {
    return this.call("POST", "/memory/import", { body: { document: memories, mode: "merge" } });
  }
  update(id, changes) {
    return this.call("PATCH", `/memory/long-term/${encodeURIComponent(id)}`, { body: changes });
  }
  get(id) { return this.call("GET", `/memory/long-term/${encodeURIComponent(id)}`); }
  remove(id) { return this.call("DELETE", `/memory/long-term/${encodeURIComponent(id)}`); }
  clear() { return this.call("DELETE", "/memory/long-term"); }
  search(q, limit = 20) { return this.call("GET", "/api/memory/search", { query: { q, limit } }); }
  readMain() { return this.call("GET", "/api/memory/main"); }
  writeMain(content) { return this.call("PUT", "/api/memory/main", { body: { content } }); }
  readProfile(scope) { return this.call("GET", "/memory/profile", { query: { scope } }); }
  writeProfile(scope, content) {
    return this.call("PUT", "/memory/profile", { body: { scope, content } });
  }
  dailyDates() { return this.call("GET", "/memory/daily"); }
  searchDaily(q) { return this.call("GET", "/memory/daily", { query: { q } }); }
  daily(day) { return this.call("GET", `/memory/daily/${encodeURIComponent(day)}`); }
  readConfig() { return this.call("GET", "/api/memory/config"); }
  writeConfig(changes) { return this.call("PUT", "/api/memory/config", { body: changes }); }
  compact() { return this.call("POST", "/api/auto-memory/compact"); }
  // What compacting would change (nothing written), then exactly that plan applied.
  previewCompaction() { return this.call("POST", "/api/auto-memory/compact/preview"); }
  applyCompaction(revision) {
    return this.call("POST", "/api/auto-memory/compact/apply", { body: { revision } });
  }
  undoCompaction() { return this.call("POST", "/api/auto-memory/undo"); }
  compactions() { return this.call("GET", "/api/auto-memory/compactions"); }
  working() { return this.call("GET", "/memory/working"); }
  // The conversations with whose, when and how many turns (another person's: only that).
  conversations(limit = 20) {
    return this.call("GET", "/memory/conversations", { query: { limit } });
  }
  conversation(id) { return this.call("GET", `/memory/sessions/${encodeURIComponent(id)}`); }
  deleteConversation(id) {
    return this.call("DELETE", `/memory/sessions/${encodeURIComponent(id)}`);
  }
  stats() { return this.call("GET", "/memory/stats"); }
  // Facts held for Review ("Who said this?"): listed, taken out, put back (Undo).
  held() { return this.call("GET", "/api/held"); }
  takeHeld(id) { return this.call("DELETE", `/api/held/${encodeURIComponent(id)}`); }
  hold(fact) { return this.call("POST", "/api/held", { body: fact }); }
  exportAll() { return this.call("GET", "/memory/export"); }
  importAll(document, mode) {
    return this.call("POST", "/memory/import", { body: { document, mode } });
  }
}

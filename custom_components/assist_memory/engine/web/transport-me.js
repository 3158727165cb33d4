import { HaTransport } from "./transport-ha.js";

// "About me" in Home Assistant: the REST calls the views make, answered with the
// websocket commands scoped to the signed-in user (their own memories, conversations
// and working memory; any user, not only administrators, and an administrator's own
// too: the Memory panel is where they see everyone's). A memory added here is the
// person's own; the undo of a delete puts theirs back. What those commands cannot do
// (search on the server, the household's counts) is answered here or refused as the
// REST API would.
const SEARCH_SCAN = 200; // the most the list command gives at once

export class MeTransport extends HaTransport {
  constructor(hass) {
    super(hass);
    this.personal = true;
    // The memories' changes, and the turns of the person's own conversations.
    this.subscription = "assist_memory/me/subscribe";
  }

  // The signed-in user's own scope (administrators are given everyone's otherwise).
  get me() { return this.hass.user.id; }

  async request(method, path, query = {}, body = undefined) {
    try {
      return { status: 200, body: await this.answer(method, path, query, body) };
    } catch (err) {
      if (typeof err?.code === "number") return { status: 0, body: { code: "offline" } };
      const status = { not_found: 404, unauthorized: 403 }[err?.code] ?? 400;
      return { status, body: { code: err?.code, error: err?.message } };
    }
  }

  async answer(method, path, query, body) {
    const call = (type, fields = {}) => this.hass.callWS({ type, ...fields });
    const [, memoryId] = path.match(/^\/memory\/long-term\/([^/]+)$/) ?? [];
    const [, sessionId] = path.match(/^\/memory\/sessions\/([^/]+)$/) ?? [];
    const route = `${method} ${memoryId ? "/memory/long-term/{id}" : sessionId ? "/memory/sessions/{id}" : path}`;
    switch (route) {
      case "GET /memory/long-term": {
        const page = await call("assist_memory/memories/list", {
          offset: Number(query.offset ?? 0), limit: Number(query.limit ?? 20),
          sort: query.sort ?? "newest", scope: this.me,
          ...(query.category ? { category: query.category } : {}),
          ...(query.tag ? { tags: query.tag } : {}),
          ...(query.origin ? { origin: query.origin } : {}),
          ...(query.last_used ? { last_used: query.last_used } : {}),
          ...(query.state ? { state: query.state } : {}),
        });
        return { ...page, hasMore: page.offset + page.items.length < page.total };
      }
      case "POST /memory/long-term": {
        const { content, category, tags, expires_at: expiresAt } = body;
        return (await call("assist_memory/memories/add",
          { content, category, tags, ...(expiresAt ? { expires_at: expiresAt } : {}) })).memory;
      }
      // Only the undo of a delete: the person's own memories back as they were.
      case "POST /memory/import":
        return call("assist_memory/memories/restore", { memories: body.document });
      case "GET /memory/long-term/{id}":
        return (await call("assist_memory/memories/get",
          { memory_id: decodeURIComponent(memoryId) })).memory;
      case "PATCH /memory/long-term/{id}": {
        const { content, category, tags, expires_at: expiresAt } = body;
        return call("assist_memory/memories/update", {
          memory_id: decodeURIComponent(memoryId), content, category, tags,
          ...(expiresAt === undefined ? {} : { expires_at: expiresAt }),
        });
      }
      case "DELETE /memory/long-term/{id}":
        return call("assist_memory/memories/delete", { memory_id: decodeURIComponent(memoryId) });
      case "GET /api/memory/search": return this.search(call, query.q);
      case "GET /memory/stats": return { count: null, maxItems: 0 };
      case "GET /memory/working": return call("assist_memory/working/list", { mine: true });
      case "GET /memory/conversations": {
        const page = await call("assist_memory/conversations/list",
          { limit: Number(query.limit ?? 20), mine: true });
        return { ...page, items: page.items.map((item) => ({
          ...item, snippet: item.snippet ?? item.reply ?? "" })) };
      }
      case "GET /memory/sessions/{id}":
        return call("assist_memory/conversations/get",
          { conversation_id: decodeURIComponent(sessionId), mine: true });
      case "DELETE /memory/sessions/{id}":
        return call("assist_memory/conversations/delete",
          { conversation_id: decodeURIComponent(sessionId), mine: true });
      default:
        throw { code: "unauthorized", message: "not for this view" };
    }
  }

  // Search in the person's own memories: every word of the text, in any case.
  async search(call, text) {
    const page = await call("assist_memory/memories/list", { limit: SEARCH_SCAN, scope: this.me });
    const words = text.toLowerCase().split(/\s+/).filter(Boolean);
    const results = page.items
      .filter((memory) => words.every((word) => memory.content.toLowerCase().includes(word)))
      .map((memory) => ({ ...memory, matched: words }));
    return { query: text, results };
  }
}

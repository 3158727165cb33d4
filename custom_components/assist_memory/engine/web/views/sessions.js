import { showDialog } from "../dialog.js";
import { capitalised, fill, formatDate, h } from "../dom.js";

// The conversations in progress (their working memory: whose, how many turns, when)
// and the recent ones: open one to read it, and ask "why did Assist say that?" of an
// answer; delete one. A person's conversations are theirs: in the household's view,
// another person's shows only whose it is, when and how many turns (`private`), and
// can be deleted, not opened.
export class SessionsView {
  constructor(ctx) {
    this.ctx = ctx;
    // Each opened card (by its list's id) -> its conversation, read again at each
    // refresh (a new turn shows as it happens).
    this.opened = new Map();
    this.element = h("section", { "aria-labelledby": "sessions-title" });
  }

  async show() {
    const { api, t } = this.ctx;
    if (this.opening) {
      // Asked to open one (a memory's "the conversation" link).
      const sessionId = this.opening;
      this.opening = null;
      this.opened.set(`conversation-${sessionId}`, { sessionId });
    }
    await this.reload();
    const [working, recent] = await Promise.all([
      api.working(), api.conversations(), this.ctx.people.load(),
    ]);
    // The conversation log's own record of each: its title and how many turns.
    const logged = new Map(recent.items.map((item) => [item.session_id, item]));
    fill(this.element,
      h("h2", { id: "sessions-title" }, t("sessions.working")),
      h("p", { class: "hint" }, t("sessions.workingHint")),
      working.items.length
        ? h("ul", { class: "cards", "aria-label": t("sessions.working") },
          working.items.map((item) => this.workingCard(item, logged.get(item.session_id))))
        : h("p", { class: "empty" }, t("sessions.noneActive")),
      h("h2", {}, t("sessions.recent")),
      recent.items.length
        ? h("ul", { class: "cards", "aria-label": t("sessions.recent") },
          recent.items.map((item) => this.card(item)))
        : h("p", { class: "empty" }, t("sessions.noneRecent")));
  }

  // A conversation in progress: what it is about, whose it is (in the household's
  // view), its turns and last activity; it opens like a recent one.
  workingCard(item, logged) {
    const { t, language } = this.ctx;
    const panelId = `working-${item.session_id}`;
    const opened = this.opened.get(panelId)?.conversation;
    return h("li", { class: "card" },
      h("p", { class: "content" }, item.private ? this.privateNote(item.user_id)
        : logged?.title || item.current_topic || t("sessions.inProgress")),
      h("p", { class: "meta" },
        this.whose(item.user_id),
        // The log counts every turn (memory sentences too, and those before the
        // working memory last expired).
        h("span", {}, t("sessions.turns", { count: logged?.turn_count ?? item.turn_count })),
        item.updated_at
          ? h("time", { datetime: item.updated_at }, formatDate(item.updated_at, language))
          : null),
      opened ? this.messages(opened, panelId) : null,
      item.private ? null : h("div", { class: "actions" },
        this.openButton(item.session_id, panelId)));
  }

  // Whose a conversation is, in the household's view (About me: one's own).
  whose(userId) {
    return this.ctx.personal ? null : this.speakerBadge(userId);
  }

  // Instead of what another person said: that it is theirs to read.
  privateNote(userId) {
    return h("span", { class: "private" },
      this.ctx.t("sessions.private", { name: this.speaker(userId) }));
  }

  openButton(sessionId, panelId) {
    const { t } = this.ctx;
    const opened = this.opened.has(panelId);
    return h("button", {
      "aria-expanded": String(opened), "aria-controls": panelId,
      onclick: () => this.toggle(sessionId, panelId),
    }, opened ? t("sessions.close") : t("sessions.open"));
  }

  card(item) {
    const { t, language } = this.ctx;
    const panelId = `conversation-${item.session_id}`;
    const opened = this.opened.get(panelId)?.conversation;
    return h("li", { class: "card" },
      h("p", { class: "content" },
        item.private ? this.privateNote(item.user_id) : item.title || t("sessions.untitled")),
      item.private || !item.snippet ? null : h("p", {}, item.snippet),
      h("p", { class: "meta" },
        this.whose(item.user_id),
        h("span", {}, t("sessions.turns", { count: item.turn_count })),
        h("time", { datetime: item.first_message_at },
          formatDate(item.first_message_at, language))),
      opened ? this.messages(opened, panelId) : null,
      h("div", { class: "actions" },
        item.private ? null : this.openButton(item.session_id, panelId),
        h("button", { class: "danger", onclick: () => this.remove(item) },
          t("sessions.delete"))));
  }

  // A conversation's messages; after each answer, the memories its turn was given.
  messages(conversation, panelId) {
    const { t } = this.ctx;
    const given = new Map();
    return h("ol", { class: "messages-list", id: panelId, "aria-label": t("sessions.messages") },
      conversation.messages.map((message) => {
        if (message.role === "user") {
          given.set("last", message.memory_ids ?? []);
          given.set("who", this.whoSpoke(message));
          return h("li", { class: "said" },
            h("strong", {}, `${this.speaker(message.user_id)}: `), message.content);
        }
        const ids = given.get("last") ?? [];
        return h("li", { class: "answer" },
          h("strong", {}, `${t("sessions.assist")}: `), message.content,
          h("details", { class: "why" },
            h("summary", {}, t("sessions.why")),
            given.get("who") ? h("p", {}, given.get("who")) : null,
            ids.length
              ? [h("p", {}, t("sessions.whySome")),
                h("ul", {}, ids.map((id) => h("li", {},
                  capitalised(conversation.memories.get(id)) ?? t("sessions.forgotten"))))]
              : h("p", {}, t("sessions.whyNone"))));
      }));
  }

  // Who said a message: their name, or "Someone" for a turn without a user.
  speaker(userId) {
    return userId ? this.ctx.people.name(userId) : this.ctx.t("sessions.someone");
  }

  // The same with the person's picture, when Home Assistant has one.
  speakerBadge(userId) {
    return userId ? this.ctx.people.badge(userId)
      : h("span", { class: "person" }, this.ctx.t("sessions.someone"));
  }

  // Who asked, and how Assist knew ("Bob, at Bedroom voice"); null for older turns.
  whoSpoke(message) {
    const { t } = this.ctx;
    const speaker = message.speaker;
    if (!speaker) return null;
    const device = speaker.device_id
      ? this.ctx.api.transport.deviceName?.(speaker.device_id) ?? t("held.someDevice")
      : null;
    const who = speaker.source === "unknown" ? null : this.speaker(message.user_id);
    const how = device ? `${speaker.source}.device` : speaker.source;
    return t(`sessions.speaker.${how}`, { who, device });
  }

  toggle(sessionId, panelId) {
    if (this.opened.has(panelId)) this.opened.delete(panelId);
    else this.opened.set(panelId, { sessionId });
    return this.ctx.run(() => this.show());
  }

  // The opened conversations as they are now (one deleted meanwhile closes).
  async reload() {
    await Promise.all([...this.opened].map(async ([panelId, { sessionId }]) => {
      try {
        const conversation = await this.ctx.api.conversation(sessionId);
        conversation.memories = await this.memoriesOf(conversation.messages);
        this.opened.set(panelId, { sessionId, conversation });
      } catch (err) {
        if (err.status !== 404) throw err;
        this.opened.delete(panelId);
      }
    }));
  }

  // The content of each memory a turn was given (a deleted one is left out).
  async memoriesOf(messages) {
    const ids = [...new Set(messages.flatMap((message) => message.memory_ids ?? []))];
    const found = await Promise.all(ids.map((id) => this.ctx.api.get(id).catch((err) => {
      if (err.status === 404) return null;
      throw err;
    })));
    return new Map(found.filter(Boolean).map((memory) => [memory.id, memory.content]));
  }

  // A conversation is deleted with its messages, summary and working memory.
  async remove(item) {
    const { t } = this.ctx;
    const answer = await showDialog(this.ctx.root, {
      title: t("sessions.deleteTitle"),
      content: h("p", { class: "quote" }, item.private
        ? this.privateNote(item.user_id) : item.title || t("sessions.untitled")),
      buttons: [{ label: t("sessions.delete"), value: "delete", danger: true }],
      cancelLabel: t("cancel"),
    });
    if (answer === "delete") {
      await this.ctx.run(async () => {
        await this.ctx.api.deleteConversation(item.session_id);
        this.opened.delete(`conversation-${item.session_id}`);
        this.opened.delete(`working-${item.session_id}`);
        this.ctx.notify(t("sessions.deleted"));
        await this.show();
      });
    }
  }
}

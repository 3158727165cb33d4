import { showDialog } from "../dialog.js";
import { fill, formatDate, h } from "../dom.js";

// Working memory of the active conversations, and the recent ones with summaries.
export class SessionsView {
  constructor(ctx) {
    this.ctx = ctx;
    this.element = h("section", { "aria-labelledby": "sessions-title" });
  }

  async show() {
    const { api, t, language } = this.ctx;
    const [working, recent] = await Promise.all([api.working(), api.sessions()]);
    fill(this.element, 
      h("h2", { id: "sessions-title" }, t("sessions.working")),
      working.items.length
        ? h("ul", { class: "cards", "aria-label": t("sessions.working") },
          working.items.map((item) => h("li", { class: "card" },
            h("p", { class: "content" }, item.current_topic || t("sessions.noTopic")),
            h("p", { class: "meta" },
              h("code", {}, item.session_id),
              h("span", {}, t("sessions.turns", { count: item.turn_count })),
              item.last_emotion ? h("span", { class: "chip" }, item.last_emotion) : null),
            Object.keys(item.context_variables).length
              ? h("pre", { class: "code" }, JSON.stringify(item.context_variables, null, 2))
              : null)))
        : h("p", { class: "empty" }, t("sessions.noneActive")),
      h("h2", {}, t("sessions.recent")),
      recent.items.length
        ? h("ul", { class: "cards", "aria-label": t("sessions.recent") },
          recent.items.map((item) => h("li", { class: "card" },
            h("p", { class: "content" }, item.title),
            h("p", {}, item.snippet),
            h("p", { class: "meta" }, h("code", {}, item.session_id),
              h("time", { datetime: item.created_at }, formatDate(item.created_at, language))),
            h("div", { class: "actions" },
              h("button", { class: "danger", onclick: () => this.remove(item) },
                t("sessions.delete"))))))
        : h("p", { class: "empty" }, t("sessions.noneRecent")));
  }

  // A conversation is deleted with its messages, summary and working memory.
  async remove(item) {
    const { t } = this.ctx;
    const answer = await showDialog(this.ctx.root, {
      title: t("sessions.deleteTitle"),
      content: h("p", { class: "quote" }, item.title),
      buttons: [{ label: t("sessions.delete"), value: "delete", danger: true }],
      cancelLabel: t("cancel"),
    });
    if (answer === "delete") {
      await this.ctx.run(async () => {
        await this.ctx.api.deleteConversation(item.session_id);
        this.ctx.notify(t("sessions.deleted"));
        await this.show();
      });
    }
  }
}

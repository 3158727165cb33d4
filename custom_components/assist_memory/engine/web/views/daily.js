import { field, fill, h } from "../dom.js";

// The daily logs: the days that have one, a day's text, and a search over them.
export class DailyView {
  constructor(ctx) {
    this.ctx = ctx;
    this.day = null;
    this.element = h("section", { "aria-labelledby": "daily-title" });
  }

  async show() {
    const { api, t } = this.ctx;
    const { dates } = await api.dailyDates();
    const day = this.day ? await api.daily(this.day) : null;
    const results = h("div");
    const input = h("input", { type: "search" });
    const search = h("form", {
      class: "bar", role: "search",
      onsubmit: (event) => {
        event.preventDefault();
        this.ctx.run(async () => {
          const { entries } = await api.searchDaily(input.value.trim());
          fill(results, entries.length
            ? h("ul", { class: "cards", "aria-label": t("daily.results") }, entries.map((entry) =>
              h("li", { class: "card" }, h("p", { class: "meta" }, `${entry.date} ${entry.time}`),
                h("p", {}, entry.text))))
            : h("p", { class: "empty" }, t("search.none")));
        });
      },
    }, field(t("daily.search"), input), h("button", {}, t("search.button")));
    fill(this.element, 
      h("h2", { id: "daily-title" }, t("daily.title")),
      search, results,
      dates.length
        ? h("nav", { class: "days", "aria-label": t("daily.days") }, dates.map((date) =>
          h("button", {
            "aria-pressed": String(date === this.day),
            onclick: () => { this.day = date; this.ctx.run(() => this.show()); },
          }, date)))
        : h("p", { class: "empty" }, t("daily.none")),
      day ? h("article", { "aria-label": day.date },
        h("h3", {}, day.date), h("pre", { class: "code" }, day.content)) : null);
  }
}

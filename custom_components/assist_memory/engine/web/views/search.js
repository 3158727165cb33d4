import { field, fill, h } from "../dom.js";

const PARTS = ["keyword", "bm25", "vector", "category", "recency", "frequency", "confidence",
  "topic_boost"];

// Search, with each result's score, its parts and the words that matched.
export class SearchView {
  constructor(ctx) {
    this.ctx = ctx;
    this.query = "";
    this.results = null;
    this.element = h("section", { "aria-labelledby": "search-title" });
  }

  async show() {
    const { t } = this.ctx;
    const input = h("input", { type: "search", required: true, value: this.query });
    const form = h("form", {
      class: "bar",
      role: "search",
      onsubmit: (event) => {
        event.preventDefault();
        this.query = input.value.trim();
        this.ctx.run(async () => {
          this.results = (await this.ctx.api.search(this.query)).results;
          await this.show();
        });
      },
    }, field(t("search.label"), input), h("button", { class: "primary" }, t("search.button")));
    fill(this.element, h("h2", { id: "search-title" }, t("search.title")), form,
      this.resultList());
  }

  resultList() {
    const { t } = this.ctx;
    if (this.results === null) return null;
    if (!this.results.length) return h("p", { class: "empty" }, t("search.none"));
    return h("ol", { class: "cards", "aria-label": t("search.results") },
      this.results.map((result) => h("li", { class: "card" },
        h("p", { class: "content" }, result.content),
        h("p", { class: "score" }, t("search.score", { score: result.score.toFixed(3) })),
        result.matched.length
          ? h("p", { class: "meta" }, t("search.matched"),
            result.matched.map((word) => h("mark", { class: "chip" }, word)))
          : null,
        h("dl", { class: "parts" }, PARTS.filter((name) => result.score_parts[name] != null)
          .map((name) => [
            h("dt", {}, t(`part.${name}`)),
            h("dd", {}, Number(result.score_parts[name]).toFixed(2)),
          ])))));
  }
}

import { showDialog } from "../dialog.js";
import { field, fill, formatDate, h } from "../dom.js";

export const CATEGORIES = ["preference", "fact", "pattern", "event", "person", "routine", "note"];
const SORTS = ["newest", "most_used", "updated", "oldest"];
const PAGE_SIZE = 20;

// Every memory, paged and filtered; add, edit, delete and clear all.
export class MemoriesView {
  constructor(ctx) {
    this.ctx = ctx;
    this.filters = { category: "", scope: "", tag: "", sort: "newest" };
    this.offset = 0;
    this.element = h("section", { "aria-labelledby": "memories-title" });
  }

  async show() {
    this.render(await this.ctx.api.list({ ...this.filters, limit: PAGE_SIZE, offset: this.offset }));
  }

  render(page) {
    const { t } = this.ctx;
    const first = page.total ? page.offset + 1 : 0;
    const last = page.offset + page.items.length;
    fill(this.element, 
      h("div", { class: "bar" },
        h("h2", { id: "memories-title" }, t("memories.title")),
        h("button", { class: "primary", onclick: () => this.add() }, t("memories.add")),
        h("button", { class: "danger", onclick: () => this.clearAll() }, t("memories.clear"))),
      this.filterBar(),
      h("p", { class: "muted" }, t("memories.range", { first, last, total: page.total })),
      page.items.length
        ? h("ul", { class: "cards", "aria-label": t("memories.title") },
          page.items.map((memory) => this.card(memory)))
        : h("p", { class: "empty" }, t("memories.empty")),
      h("div", { class: "bar" },
        h("button", {
          disabled: page.offset === 0,
          onclick: () => this.go(Math.max(0, page.offset - PAGE_SIZE)),
        }, t("memories.previous")),
        h("button", {
          disabled: !page.hasMore, onclick: () => this.go(page.offset + PAGE_SIZE),
        }, t("memories.next"))));
  }

  filterBar() {
    const { t } = this.ctx;
    const select = (label, name, values, labelOf) => field(label, h("select", {
      onchange: (event) => this.filter(name, event.target.value),
    }, values.map((value) => h("option", { value, selected: this.filters[name] === value },
      labelOf(value)))));
    const text = (label, name) => field(label, h("input", {
      type: "search", value: this.filters[name],
      onchange: (event) => this.filter(name, event.target.value.trim()),
    }));
    return h("div", { class: "filters" },
      select(t("memories.category"), "category", ["", ...CATEGORIES],
        (value) => (value ? t(`category.${value}`) : t("memories.all"))),
      text(t("memories.scope"), "scope"),
      text(t("memories.tag"), "tag"),
      select(t("memories.sort"), "sort", SORTS, (value) => t(`sort.${value}`)));
  }

  card(memory) {
    const { t, language } = this.ctx;
    return h("li", { class: "card" },
      h("p", { class: "content" }, memory.content),
      h("p", { class: "meta" },
        h("span", { class: "chip" }, t(`category.${memory.category}`)),
        h("span", {}, t("memories.scopeOf", { scope: memory.scope })),
        memory.tags.map((tag) => h("span", { class: "chip tag" }, `#${tag}`)),
        h("span", {}, t("memories.used", { count: memory.access_count })),
        h("time", { datetime: memory.created_at }, formatDate(memory.created_at, language))),
      h("div", { class: "actions" },
        h("button", { onclick: () => this.edit(memory) }, t("memories.edit")),
        h("button", { class: "danger", onclick: () => this.remove(memory) },
          t("memories.delete"))));
  }

  filter(name, value) {
    this.filters[name] = value;
    this.go(0);
  }

  go(offset) {
    this.offset = offset;
    this.ctx.run(() => this.show());
  }

  async add() {
    const { api, t } = this.ctx;
    const saved = await this.form(t("memories.addTitle"), {
      content: "", category: "fact", tags: [], scope: "household",
    }, async (values) => {
      await api.add(values);
      this.offset = 0;
    });
    if (saved) this.ctx.notify(t("memories.added"));
  }

  async edit(memory) {
    const { api, t } = this.ctx;
    const saved = await this.form(t("memories.editTitle"), memory,
      (values) => api.update(memory.id, values));
    if (saved) this.ctx.notify(t("memories.saved"));
  }

  // The add/edit dialog. `save(values)` runs with the dialog still open: if it fails,
  // the error shows there and the text typed stays. Answers whether it was saved.
  async form(title, memory, save) {
    const { t } = this.ctx;
    const content = h("textarea", { required: true, rows: 4, value: memory.content });
    const category = h("select", {}, CATEGORIES.map((value) =>
      h("option", { value, selected: value === memory.category }, t(`category.${value}`))));
    const tags = h("input", { value: memory.tags.join(", ") });
    const scope = h("input", { value: memory.scope, required: true });
    const answer = await showDialog(this.ctx.root, {
      title,
      content: h("div", { class: "form" },
        field(t("memories.content"), content),
        field(t("memories.category"), category),
        field(t("memories.tags"), tags, t("memories.tagsHint")),
        field(t("memories.scope"), scope)),
      buttons: [{ label: t("save"), value: "save" }],
      cancelLabel: t("cancel"),
      describe: this.ctx.describe,
      submit: () => save({
        content: content.value.trim(),
        category: category.value,
        tags: tags.value.split(",").map((tag) => tag.trim()).filter(Boolean),
        scope: scope.value.trim(),
      }),
    });
    if (answer !== "save") return false;
    await this.ctx.run(() => this.show());
    return true;
  }

  // Deleted at once, with Undo: the same memory comes back (id, times, provenance).
  // A memory someone else deleted meanwhile is said to be gone, and the list refreshed.
  async remove(memory) {
    const { api, t } = this.ctx;
    let gone = false;
    await this.ctx.run(async () => {
      try {
        await api.remove(memory.id);
      } catch (err) {
        if (err.status !== 404) throw err;
        gone = true;
      }
      await this.show();
    });
    if (gone) {
      this.ctx.notify(t("memories.alreadyGone"));
      return;
    }
    this.ctx.notify(t("memories.deleted"), {
      label: t("undo"),
      run: async () => {
        await api.restore([memory]);
        await this.show();
        this.ctx.notify(t("memories.restored"));
      },
    });
  }

  // Clearing everything needs the confirmation word typed in.
  async clearAll() {
    const { t } = this.ctx;
    const word = t("clear.word");
    const input = h("input", { required: true, pattern: word, autocomplete: "off" });
    const answer = await showDialog(this.ctx.root, {
      title: t("clear.title"),
      content: h("div", { class: "form" },
        h("p", {}, t("clear.warning")),
        field(t("clear.prompt", { word }), input)),
      buttons: [{ label: t("clear.confirm"), value: "clear", danger: true }],
      cancelLabel: t("cancel"),
    });
    if (answer === "clear" && input.value === word) {
      await this.ctx.run(async () => {
        const result = await this.ctx.api.clear();
        this.ctx.notify(t("clear.done", { count: result.deleted }));
        this.offset = 0;
        await this.show();
      });
    }
  }
}

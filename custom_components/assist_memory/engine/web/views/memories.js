import { showDialog } from "../dialog.js";
import { capitalised, field, fill, formatDate, h } from "../dom.js";
import { download, exportFile } from "../exports.js";
import { provenance } from "../provenance.js";

export const CATEGORIES = ["preference", "fact", "pattern", "event", "person", "routine", "note"];
const SORTS = ["newest", "most_used", "updated", "oldest"];
// The list API's filters by origin and last use (the server's buckets: 7 and 90 days).
const ORIGINS = ["stated", "learned"];
const LAST_USED = ["recent", "dormant", "never"];
// Memories whose end has not come, and those whose end has (shown, no longer used).
const STATES = ["current", "ended"];
const DAY_MS = 24 * 60 * 60 * 1000;

function hasEnded(memory) {
  return Boolean(memory.expires_at) && new Date(memory.expires_at).getTime() <= Date.now();
}

// The last day a memory holds ("YYYY-MM-DD" here): the day before the moment it ends.
function lastDay(memory) {
  if (!memory.expires_at) return "";
  const day = new Date(new Date(memory.expires_at).getTime() - 1);
  const pad = (number) => String(number).padStart(2, "0");
  return `${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}`;
}

// "Until" a day: the memory ends at the midnight after it, here.
function endAfter(day) {
  const [year, month, date] = day.split("-").map(Number);
  return new Date(year, month - 1, date + 1).toISOString();
}

function formatDay(day, language) {
  const [year, month, date] = day.split("-").map(Number);
  return new Date(year, month - 1, date).toLocaleDateString(language, { dateStyle: "medium" });
}

function originOf(memory) {
  return memory.source === "user_stated" ? "stated" : "learned";
}

function usedIn(memory, bucket) {
  if (!memory.last_accessed) return bucket === "never";
  const since = Date.now() - new Date(memory.last_accessed).getTime();
  return { recent: since <= 7 * DAY_MS, dormant: since > 90 * DAY_MS }[bucket] ?? false;
}
const PAGE_SIZE = 20;
const SEARCH_LIMIT = 50;
// Typing faster than this is one search, of the text at the pause.
const TYPING_PAUSE_MS = 30;

// Confidence in words: "sure" from 0.9, "fairly sure" from 0.6, else "unsure".
function confidenceWord(confidence) {
  if (confidence >= 0.9) return "sure";
  return confidence >= 0.6 ? "fairly" : "unsure";
}

// How a search result was found: by its words, by meaning (the local model or an
// embedding server), or both.
function foundBy(memory) {
  const words = (memory.matched ?? []).length > 0 || memory.score_parts.bm25 > 0;
  const meaning = memory.score_parts.vector !== null && memory.score_parts.vector !== undefined;
  if (words && meaning) return "both";
  return meaning ? "meaning" : "words";
}

// The text with each matched word marked (case-insensitive).
function highlight(text, words) {
  const wanted = [...new Set(words.filter(Boolean))]
    .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (!wanted.length) return text;
  const pattern = new RegExp(`(${wanted.join("|")})`, "giu");
  return text.split(pattern).map((part, index) => (index % 2 ? h("mark", {}, part) : part));
}

// What Assist knows: every memory, paged and filtered, or found as you type; each
// explains where it came from. Add, edit, delete (with Undo) and clear all.
export class MemoriesView {
  constructor(ctx) {
    this.ctx = ctx;
    this.filters = {
      category: "", scope: "", tag: "", origin: "", last_used: "", sort: "newest",
      state: "current",
    };
    this.query = "";
    this.offset = 0;
    this.element = h("section", { "aria-labelledby": "memories-title" });
    this.searchBox = h("input", {
      type: "search", autocomplete: "off",
      oninput: () => this.typed(),
    });
    this.results = h("div", { class: "results" });
    this.filtersBox = h("div");
    this.capacityBox = h("div");
    this.selected = new Map(); // id -> memory, for the bulk actions
    this.bulkBox = h("div", { class: "bulk", role: "region", "aria-live": "polite" });
  }

  async show() {
    const { api, people } = this.ctx;
    // The cards first; how full the memory is follows when its count comes.
    const stats = api.stats();
    const [page] = await Promise.all([
      this.query
        ? api.search(this.query, SEARCH_LIMIT).then((found) => ({
          items: found.results, total: found.results.length, offset: 0, hasMore: false,
        }))
        : api.list({ ...this.filters, limit: PAGE_SIZE, offset: this.offset }),
      people.load(),
    ]);
    this.shownIds = new Set(page.items.map((memory) => memory.id));
    this.render(page);
    const counts = await stats;
    fill(this.capacityBox, this.capacity(counts), this.understanding(counts));
  }

  // Search by meaning while the memories are being embedded in the background.
  understanding(stats) {
    if (!stats.vectorSearch || stats.count === null || stats.embedded >= stats.count) return null;
    return h("p", { class: "muted understanding", role: "status" },
      this.ctx.t("understanding", { done: stats.embedded, count: stats.count }));
  }

  // Which memories this view shows: the search's results, or those of the filters.
  shownFilter() {
    if (this.query) {
      const ids = this.shownIds;
      return (memory) => ids.has(memory.id);
    }
    const { category, scope, tag, origin, last_used: lastUsed, state } = this.filters;
    return (memory) => (state === "ended") === hasEnded(memory)
      && (!category || memory.category === category)
      && (!scope || memory.scope === scope) && (!tag || memory.tags.includes(tag))
      && (!origin || originOf(memory) === origin) && (!lastUsed || usedIn(memory, lastUsed));
  }

  // How full the memory is, warning from 90 % with the way to raise the limit.
  capacity(stats) {
    const { t } = this.ctx;
    if (stats.count === null) return null; // not for one person's view
    if (!stats.maxItems) return h("p", { class: "muted capacity" }, t("capacity.unlimited", { count: stats.count }));
    const nearlyFull = stats.count >= stats.maxItems * 0.9;
    return h("div", { class: nearlyFull ? "capacity warn" : "capacity" },
      h("label", {},
        h("span", {}, t("capacity.used", { count: stats.count, max: stats.maxItems })),
        h("progress", { max: stats.maxItems, value: stats.count })),
      nearlyFull ? h("p", { role: "note" }, t("capacity.raise")) : null);
  }

  // Search as you type: the latest keystroke wins; earlier answers are dropped.
  typed() {
    clearTimeout(this.typing);
    this.typing = setTimeout(() => {
      this.query = this.searchBox.value.trim();
      this.offset = 0;
      this.ctx.run(() => this.show());
    }, TYPING_PAUSE_MS);
  }

  render(page) {
    const { t } = this.ctx;
    const first = page.total ? page.offset + 1 : 0;
    const last = page.offset + page.items.length;
    if (!this.element.firstChild) {
      fill(this.element,
        h("div", { class: "bar" },
          h("h2", { id: "memories-title" }, t("memories.title")),
          // A person sees, adds, corrects and deletes their own memories; clearing
          // is the household's administrators'.
          h("button", { class: "primary", onclick: () => this.add() }, t("memories.add")),
          this.ctx.personal ? null
            : h("button", { class: "danger", onclick: () => this.clearAll() }, t("memories.clear"))),
        h("div", { role: "search", class: "searchbar" },
          field(t("memories.searchLabel"), this.searchBox)),
        this.filtersBox,
        this.capacityBox,
        this.bulkBox,
        this.results);
    }
    const words = this.query ? page.items.flatMap((item) => item.matched ?? []) : [];
    fill(this.results,
      h("p", { class: "muted" }, this.query
        ? t("memories.found", { count: page.total })
        : t("memories.range", { first, last, total: page.total })),
      page.items.length
        ? h("ul", { class: "cards", "aria-label": t("memories.title") },
          page.items.map((memory) => this.card(memory, words)))
        : h("p", { class: "empty" }, this.query ? t("search.none") : t("memories.empty")),
      this.query ? null : h("div", { class: "bar" },
        h("button", {
          disabled: page.offset === 0,
          onclick: () => this.go(Math.max(0, page.offset - PAGE_SIZE)),
        }, t("memories.previous")),
        h("button", {
          disabled: !page.hasMore, onclick: () => this.go(page.offset + PAGE_SIZE),
        }, t("memories.next"))));
    // After the cards: the people they name are known by then.
    fill(this.filtersBox, this.filterBar());
    this.renderBulk();
  }

  // Filters as chips (one pressed per row) in Home Assistant's look; the tag and the
  // order as fields.
  filterBar() {
    const { t, people } = this.ctx;
    const chips = (label, name, values, labelOf) => h("div", {
      class: "chip-row", role: "group", "aria-label": label,
    }, h("span", { class: "chip-label", "aria-hidden": "true" }, label),
    values.map((value) => h("button", {
      type: "button", class: "filter-chip", "aria-pressed": String(this.filters[name] === value),
      onclick: () => this.filter(name, value),
    }, this.filters[name] === value ? h("span", { "aria-hidden": "true" }, "✓ ") : null,
    labelOf(value))));
    const select = (label, name, values, labelOf) => field(label, h("select", {
      onchange: (event) => this.filter(name, event.target.value),
    }, values.map((value) => h("option", { value, selected: this.filters[name] === value },
      labelOf(value)))));
    // Folded on a phone (the memories come first), open on a wider screen.
    // As the person left them, once they opened or closed them.
    const open = this.filtersOpen ?? matchMedia("(min-width: 601px)").matches;
    return h("details", {
      class: "filter-box", open,
      ontoggle: (event) => {
        if (event.target.open !== open) this.filtersOpen = event.target.open;
      },
    }, h("summary", {}, t("memories.filters")),
    // One person sees only their own: no person to pick.
    this.ctx.personal ? null : chips(t("memories.person"), "scope", ["", ...people.scopes()],
      (value) => (value ? people.name(value) : t("memories.everyone"))),
    chips(t("memories.category"), "category", ["", ...CATEGORIES],
      (value) => (value ? t(`category.${value}`) : t("memories.all"))),
    chips(t("memories.origin"), "origin", ["", ...ORIGINS],
      (value) => (value ? t(`origin.${value}`) : t("memories.any"))),
    chips(t("memories.lastUsed"), "last_used", ["", ...LAST_USED],
      (value) => (value ? t(`used.${value}`) : t("memories.any"))),
    chips(t("memories.state"), "state", STATES, (value) => t(`state.${value}`)),
    h("div", { class: "filters" },
      field(t("memories.tag"), h("input", {
        type: "search", value: this.filters.tag, placeholder: "#",
        // "#anna" and "anna" find the same tag.
        onchange: (event) => this.filter("tag", event.target.value.trim().replace(/^#+/, "")),
      })),
      select(t("memories.sort"), "sort", SORTS, (value) => t(`sort.${value}`))));
  }

  card(memory, words) {
    const { t, language, people } = this.ctx;
    const meta = memory.metadata ?? {};
    return h("li", { class: "card" },
      h("label", { class: "select" },
        h("input", {
          type: "checkbox", checked: this.selected.has(memory.id),
          "aria-label": t("bulk.select", { content: capitalised(memory.content) }),
          onchange: (event) => this.select(memory, event.target.checked),
        })),
      h("p", { class: "content" }, highlight(capitalised(memory.content), words)),
      h("p", { class: "meta" },
        h("span", { class: "chip" }, t(`category.${memory.category}`)),
        people.badge(memory.scope),
        memory.tags.map((tag) => h("span", { class: "chip tag" }, `#${tag}`)),
        memory.expires_at ? h("span", { class: "chip" }, t(
          hasEnded(memory) ? "memories.endedOn" : "memories.until",
          { date: formatDay(lastDay(memory), language) })) : null,
        h("span", { class: "provenance" }, provenance(memory, t, people)),
        h("span", {}, t(`confidence.${confidenceWord(memory.confidence)}`)),
        h("span", {}, memory.access_count
          ? t("memories.used", { count: memory.access_count }) : t("origin.neverUsed"))),
      h("div", { class: "card-foot" },
        h("details", { class: "origin" },
          h("summary", {}, t("origin.title")),
          memory.score_parts ? h("p", { class: "found-by" }, t(`origin.found.${foundBy(memory)}`)) : null,
          meta.said ? h("p", { class: "quote" }, meta.said) : null,
          h("p", {}, t("origin.created", { date: formatDate(memory.created_at, language) })),
          // "Not used in an answer yet" is said above already.
          memory.last_accessed
            ? h("p", {}, t("origin.lastUsed", { date: formatDate(memory.last_accessed, language) }))
            : null,
          memory.session_id
            ? h("button", { class: "text", onclick: () => this.ctx.openConversation(memory.session_id) },
              t("origin.conversation"))
            : null),
        h("div", { class: "actions" },
          h("button", { onclick: () => this.edit(memory) }, t("memories.edit")),
          h("button", { class: "danger", onclick: () => this.remove(memory) },
            t("memories.delete")))));
  }

  select(memory, on) {
    if (on) this.selected.set(memory.id, memory);
    else this.selected.delete(memory.id);
    this.renderBulk();
  }

  // What can be done with the selected memories: delete (with Undo), move to another
  // person, export.
  renderBulk() {
    const { t, people } = this.ctx;
    const count = this.selected.size;
    if (!count) {
      fill(this.bulkBox);
      return;
    }
    // Kept across refreshes (a change elsewhere redraws this bar).
    const target = h("select", {
      onchange: (event) => { this.moveTarget = event.target.value; },
    }, people.scopes().map((value) =>
      h("option", { value, selected: value === this.moveTarget }, people.name(value))));
    fill(this.bulkBox,
      h("span", {}, t("bulk.count", { count })),
      h("button", { class: "danger", onclick: () => this.removeSelected() }, t("bulk.delete")),
      this.ctx.personal ? null : field(t("bulk.moveTo"), target),
      this.ctx.personal ? null
        : h("button", { onclick: () => this.moveSelected(target.value) }, t("bulk.move")),
      h("button", { onclick: () => this.exportSelected() }, t("bulk.export")),
      h("button", { class: "text", onclick: () => this.clearSelection() },
        t("bulk.none")));
  }

  clearSelection() {
    this.selected.clear();
    this.ctx.run(() => this.show());
  }

  async removeSelected() {
    const { api, t } = this.ctx;
    const memories = [...this.selected.values()];
    const done = await this.ctx.run(async () => {
      for (const memory of memories) {
        await api.remove(memory.id).catch((err) => {
          if (err.status !== 404) throw err; // gone already: as wanted
        });
      }
      this.selected.clear();
      await this.show();
    });
    if (!done) return;
    this.ctx.notify(t("bulk.deleted", { count: memories.length }), {
      label: t("undo"),
      run: async () => {
        await api.restore(memories);
        await this.show();
        this.ctx.notify(t("bulk.restored", { count: memories.length }));
      },
    });
  }

  async moveSelected(scope) {
    const { api, t, people } = this.ctx;
    const memories = [...this.selected.values()];
    const done = await this.ctx.run(async () => {
      for (const memory of memories) await api.update(memory.id, { scope });
      this.selected.clear();
      await this.show();
    });
    if (done) this.ctx.notify(t("bulk.moved", { count: memories.length, name: people.name(scope) }));
  }

  exportSelected() {
    const { t, people } = this.ctx;
    const memories = [...this.selected.values()];
    const file = exportFile({ memories, count: memories.length }, "json", {
      personName: (scope) => people.name(scope), t,
    });
    download(this.element, file);
    this.ctx.notify(t("backup.exported", { count: file.count }));
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

  // `after`: what to refresh besides this view (the review queue edits here too).
  async edit(memory, after = null) {
    const { api, t } = this.ctx;
    const saved = await this.form(t("memories.editTitle"), memory,
      (values) => api.update(memory.id, values));
    if (saved && after) await this.ctx.run(after);
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
    // "Until …": the last day it holds; empty: it never ends.
    const until = h("input", { type: "date", value: lastDay(memory) });
    const { people } = this.ctx;
    const scope = h("select", {}, [...new Set([...people.scopes(), memory.scope])].map((value) =>
      h("option", { value, selected: value === memory.scope }, people.name(value))));
    const answer = await showDialog(this.ctx.root, {
      title,
      content: h("div", { class: "form" },
        field(t("memories.content"), content),
        field(t("memories.category"), category),
        field(t("memories.tags"), tags, t("memories.tagsHint")),
        field(t("memories.untilField"), until, t("memories.untilHint")),
        this.ctx.personal ? null : field(t("memories.person"), scope)),
      buttons: [{ label: t("save"), value: "save" }],
      cancelLabel: t("cancel"),
      describe: this.ctx.describe,
      submit: () => save({
        content: content.value.trim(),
        category: category.value,
        tags: tags.value.split(",").map((tag) => tag.trim()).filter(Boolean),
        scope: scope.value.trim(),
        // Cleared on a memory that had an end: it no longer ends.
        ...(until.value ? { expires_at: endAfter(until.value) }
          : memory.expires_at ? { expires_at: "" } : {}),
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

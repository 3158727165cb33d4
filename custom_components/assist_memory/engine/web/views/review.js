import { capitalised, fill, h } from "../dom.js";
import { provenance } from "../provenance.js";
import { HeldSection } from "./held.js";

// Below this, a memory is worth a look even when it was stated.
const UNSURE_BELOW = 0.7;

// Review: the memories Assist learned by itself or is unsure of (keep, edit, forget),
// and repeats and contradictions (merged in one click, with Undo).
export class ReviewView {
  constructor(ctx) {
    this.ctx = ctx;
    this.element = h("section", { "aria-labelledby": "review-title" });
    this.held = new HeldSection(ctx, () => this.show());
  }

  async show() {
    const { api, t, people } = this.ctx;
    const [document_] = await Promise.all([
      api.exportAll(), people.load(), this.held.load(),
    ]);
    const memories = document_.memories;
    const toCheck = memories.filter((memory) => !memory.metadata?.reviewed_at
      && (memory.source !== "user_stated" || memory.confidence < UNSURE_BELOW));
    const groups = sameThings(memories);
    fill(this.element,
      h("h2", { id: "review-title" }, t("review.title")),
      this.held.render(),
      h("h3", {}, t("review.toCheck", { count: toCheck.length })),
      toCheck.length
        ? h("ul", { class: "cards", "aria-label": t("review.toCheckList") },
          toCheck.map((memory) => this.checkCard(memory)))
        : h("p", { class: "empty" }, t("review.nothingToCheck")),
      h("h3", {}, t("review.repeats", { count: groups.length })),
      groups.length
        ? h("ul", { class: "cards", "aria-label": t("review.repeatsList") },
          groups.map((group) => this.groupCard(group)))
        : h("p", { class: "empty" }, t("review.noRepeats")));
  }

  checkCard(memory) {
    const { t, people } = this.ctx;
    return h("li", { class: "card" },
      h("p", { class: "content" }, capitalised(memory.content)),
      h("p", { class: "meta" }, people.badge(memory.scope),
        h("span", { class: "provenance" }, provenance(memory, t, people)),
        h("span", {}, t(`confidence.${memory.confidence >= 0.6 ? "fairly" : "unsure"}`))),
      memory.metadata?.said ? h("p", { class: "quote" }, memory.metadata.said) : null,
      h("div", { class: "actions" },
        h("button", { class: "primary", onclick: () => this.keep(memory) }, t("review.keep")),
        h("button", { onclick: () => this.ctx.editMemory(memory, () => this.show()) },
          t("memories.edit")),
        h("button", { class: "danger", onclick: () => this.forget([memory]) },
          t("review.forget"))));
  }

  groupCard(group) {
    const { t } = this.ctx;
    return h("li", { class: "card" },
      h("p", { class: "meta" }, t(group.conflict ? "review.conflict" : "review.repeat")),
      h("ul", {}, group.memories.map((memory) => h("li", {}, capitalised(memory.content)))),
      h("div", { class: "actions" },
        h("button", { class: "primary", onclick: () => this.merge(group) },
          t(group.conflict ? "review.keepFirst" : "review.merge"))));
  }

  // Kept as it is: it leaves the queue (noted in its metadata).
  keep(memory) {
    const { api, t } = this.ctx;
    return this.ctx.run(async () => {
      await api.update(memory.id, {
        metadata: { ...memory.metadata, reviewed_at: new Date().toISOString() },
      });
      await this.show();
      this.ctx.notify(t("review.kept"));
    });
  }

  // One memory stays (the first: the most used, then the newest) with every tag of
  // the group; the others go. Undo puts the group back as it was.
  merge(group) {
    const { api, t } = this.ctx;
    const [keeper, ...others] = group.memories;
    const tags = [...new Set(group.memories.flatMap((memory) => memory.tags))];
    return this.ctx.run(async () => {
      if (tags.length !== keeper.tags.length) await api.update(keeper.id, { tags });
      for (const memory of others) await removeIfThere(api, memory.id);
      await this.show();
      this.ctx.notify(t("review.merged", { count: group.memories.length }), {
        label: t("undo"),
        run: async () => {
          await api.restore(group.memories);
          await this.show();
          this.ctx.notify(t("memories.restored"));
        },
      });
    });
  }

  forget(memories) {
    const { api, t } = this.ctx;
    return this.ctx.run(async () => {
      for (const memory of memories) await removeIfThere(api, memory.id);
      await this.show();
      this.ctx.notify(t("memories.deleted"), {
        label: t("undo"),
        run: async () => {
          await api.restore(memories);
          await this.show();
          this.ctx.notify(t("memories.restored"));
        },
      });
    });
  }
}

async function removeIfThere(api, id) {
  await api.remove(id).catch((err) => {
    if (err.status !== 404) throw err; // gone already: as wanted
  });
}

// Text compared without case, spaces or punctuation: "We drink tea." = "we drink tea".
function normalized(text) {
  return text.toLowerCase().replace(/[\p{P}\p{S}\s]+/gu, "");
}

// Groups of memories about the same thing, for one person: repeats (the same text)
// and contradictions (the same key, different texts). Most used, then newest, first.
export function sameThings(memories) {
  const byText = new Map();
  const byKey = new Map();
  for (const memory of memories) {
    const text = `${memory.scope}\u0000${normalized(memory.content)}`;
    if (!byText.has(text)) byText.set(text, []);
    byText.get(text).push(memory);
    if (memory.key) {
      const key = `${memory.scope}\u0000${memory.key}`;
      if (!byKey.has(key)) byKey.set(key, []);
      byKey.get(key).push(memory);
    }
  }
  const order = (a, b) => (b.access_count - a.access_count)
    || String(b.updated_at).localeCompare(String(a.updated_at));
  const repeats = [...byText.values()].filter((group) => group.length > 1)
    .map((group) => ({ conflict: false, memories: group.sort(order) }));
  const conflicts = [...byKey.values()]
    .filter((group) => new Set(group.map((memory) => normalized(memory.content))).size > 1)
    .map((group) => ({ conflict: true, memories: group.sort(order) }));
  return [...repeats, ...conflicts];
}

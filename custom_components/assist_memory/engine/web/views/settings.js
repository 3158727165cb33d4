import { field, fill, formatDate, h } from "../dom.js";
import { SETTING_UNITS } from "../setting_words.js";

// What a person decides, saved at once: memory on/off, learning on/off.
const SWITCHES = ["enabled", "autoExtract"];
// Also theirs, saved with the button: how long conversations and logs are kept.
const MAIN = ["conversationRetentionDays", "dailyLogRetentionDays", "learnFromOtherAgents"];
// Settings chosen from a list, each value in words (`choice.<name>.<value>`).
const CHOICES = { promptMode: ["system", "prefix"] };

// The settings a person decides, with help; the rest under Advanced, each explained;
// compaction (disabled, with the reason, while it cannot run): what it would change
// shown first, applied on request, then what it changed, with undo.
export class SettingsView {
  constructor(ctx) {
    this.ctx = ctx;
    this.element = h("section", { "aria-labelledby": "settings-title" });
    this.lastCompaction = null; // {removed, added} of the last compaction here
    this.preview = null; // what compacting would change, until applied or cancelled
  }

  async show() {
    const { api, t } = this.ctx;
    const [config, compactions] = await Promise.all([api.readConfig(), api.compactions()]);
    const switches = SWITCHES.filter((name) => name in config)
      .map((name) => this.switchFor(name, config[name]));
    const controls = Object.entries(config).filter(([name]) => !SWITCHES.includes(name))
      .map(([name, value]) => [name, control(name, value, t)]);
    // Named, explained and counted in the same words as the options (one source).
    const labelled = (names) => controls.filter(([name]) => names(name))
      .map(([name, input]) => field(t(`setting.${name}`),
        SETTING_UNITS[name]
          ? h("span", { class: "with-unit" }, input, h("span", {}, t(`unit.${SETTING_UNITS[name]}`)))
          : input,
        t(`help.${name}`, {}, "")));
    const form = h("form", {
      class: "form",
      onsubmit: (event) => {
        event.preventDefault();
        const changes = Object.fromEntries(controls.map(([name, input]) => [name, read(input)])
          .filter(([name, value]) => value !== config[name]));
        this.ctx.run(async () => {
          await api.writeConfig(changes);
          this.ctx.notify(t("settings.saved"));
          await this.show();
        });
      },
    },
    h("div", { class: "settings" }, labelled((name) => MAIN.includes(name))),
    h("details", { class: "advanced" },
      h("summary", {}, t("settings.advanced")),
      h("p", { class: "muted" }, t("settings.advancedHint")),
      h("div", { class: "settings" }, labelled((name) => !MAIN.includes(name)))),
    h("button", { class: "primary" }, t("settings.save")));
    const canCompact = Boolean(config.compactionEnabled);
    // A tidy-up is undone from its saved state: none, nothing to undo.
    const canUndo = compactions.items.length > 0;
    fill(this.element,
      h("h2", { id: "settings-title" }, t("settings.title")),
      switches,
      h("p", { class: "muted" }, t("settings.agentHint")),
      form,
      h("h2", {}, t("compaction.title")),
      h("p", { class: "muted" }, t("compaction.hint")),
      h("div", { class: "bar" },
        h("button", {
          class: "primary", disabled: !canCompact, "aria-describedby": "compaction-why",
          onclick: () => this.compact(),
        }, t("compaction.run")),
        h("button", {
          disabled: !canUndo, "aria-describedby": canUndo ? null : "undo-why",
          onclick: () => this.undo(),
        }, t("compaction.undo"))),
      canCompact ? null : h("p", { id: "compaction-why", class: "hint" }, t("compaction.why")),
      canUndo ? null : h("p", { id: "undo-why", class: "hint" }, t("compaction.nothingToUndo")),
      this.preview ? this.diff(changes(this.preview), this.preview) : null,
      this.lastCompaction ? this.diff(this.lastCompaction) : null,
      compactions.items.length
        ? h("ul", { class: "plain", "aria-label": t("compaction.backups") },
          compactions.items.map((item) => h("li", {},
            t("compaction.backup", {
              date: formatDate(item.createdAt, this.ctx.language), count: item.count ?? "?",
            }))))
        : null);
  }

  // A switch saved at once, with its help text.
  switchFor(name, on) {
    const { api, t } = this.ctx;
    const input = h("input", {
      type: "checkbox", role: "switch", checked: on,
      "aria-describedby": `help-${name}`,
      onchange: () => this.ctx.run(async () => {
        await api.writeConfig({ [name]: input.checked });
        this.ctx.notify(t(`settings.${name}.${input.checked ? "on" : "off"}`));
      }),
    });
    return h("div", { class: "switch-row" },
      h("label", { class: "switch" }, input, h("span", {}, t(`setting.${name}`))),
      h("p", { id: `help-${name}`, class: "hint" }, t(`help.${name}`)));
  }

  // A compaction's changes: the memories taken away (struck through) and the text
  // written. `preview`: what it would change, with Apply.
  diff({ removed, added }, preview = null) {
    const { t } = this.ctx;
    const id = preview ? "preview-title" : "diff-title";
    return h("section", { class: "diff", "aria-labelledby": id },
      h("h3", { id }, t(preview ? "compaction.preview" : "compaction.changes")),
      h("div", { class: "diff-columns" },
        h("div", {},
          h("h4", {}, t("compaction.removed", { count: removed.length })),
          h("ul", { class: "removed" }, removed.map((text) => h("li", {}, h("del", {}, text))))),
        h("div", {},
          h("h4", {}, t("compaction.added", { count: added.length })),
          h("ul", { class: "added" }, added.map((text) => h("li", {}, h("ins", {}, text)))))),
      preview ? h("div", { class: "actions" },
        h("button", { onclick: () => { this.preview = null; this.ctx.run(() => this.show()); } },
          t("cancel")),
        h("button", { class: "primary", onclick: () => this.apply(preview) },
          t("compaction.apply"))) : null);
  }

  // Compact now: first what it would change; Apply runs exactly that.
  compact() {
    return this.ctx.run(async () => {
      const answer = await this.ctx.api.previewCompaction();
      const planned = answer.message ? null : changes(answer);
      const nothing = planned && !planned.removed.length && !planned.added.length;
      this.lastCompaction = null;
      this.preview = planned && !nothing ? answer : null;
      await this.show();
      if (answer.message) this.ctx.notify(this.describe(answer));
      else if (nothing) this.ctx.notify(this.ctx.t("compaction.nothing"));
    });
  }

  // Applied unless the memories changed since the preview: then the fresh one shows.
  apply(preview) {
    return this.ctx.run(async () => {
      const answer = await this.ctx.api.applyCompaction(preview.revision);
      this.preview = answer.applied === false ? answer.preview : null;
      this.lastCompaction = answer.applied ? changes(preview) : null;
      await this.show();
      this.ctx.notify(answer.applied === false
        ? this.ctx.t("compaction.stale") : this.describe(answer));
    });
  }

  undo() {
    return this.ctx.run(async () => {
      const answer = await this.ctx.api.undoCompaction();
      this.lastCompaction = null;
      await this.show();
      this.ctx.notify(this.describe(answer, "undone"));
    });
  }

  describe(answer, kind = "done") {
    if (answer.message) return this.ctx.t(`compaction.message.${answer.message}`, {}, answer.message);
    return this.ctx.t(`compaction.${kind}`, {
      before: answer.originalCount, after: answer.compactedCount,
    });
  }
}

// A preview's changes as texts: what goes (removed, or rewritten from) and what is
// written (rewritten to, or added).
function changes(preview) {
  return {
    removed: [...preview.removed, ...preview.rewritten].map((memory) => memory.content),
    added: [
      ...preview.rewritten.map((memory) => memory.newContent),
      ...preview.added.map((memory) => memory.content),
    ],
  };
}

function control(name, value, t) {
  if (typeof value === "boolean") return h("input", { type: "checkbox", role: "switch", checked: value });
  if (typeof value === "number") return h("input", { type: "number", value, step: 1, min: 0 });
  return h("select", {}, (CHOICES[name] ?? [value]).map((choice) =>
    h("option", { value: choice, selected: choice === value }, t(`choice.${name}.${choice}`, {}, choice))));
}

function read(input) {
  if (input.type === "checkbox") return input.checked;
  if (input.type === "number") return Number(input.value);
  return input.value;
}

import { field, fill, formatDate, h } from "../dom.js";

// Settings that are chosen from a list (the rest are switches and whole numbers).
const CHOICES = { promptMode: ["system", "prefix"] };

// Automatic memory on/off (saved at once), the other settings, and compaction.
export class SettingsView {
  constructor(ctx) {
    this.ctx = ctx;
    this.element = h("section", { "aria-labelledby": "settings-title" });
  }

  async show() {
    const { api, t } = this.ctx;
    const [config, compactions] = await Promise.all([api.readConfig(), api.compactions()]);
    const auto = h("input", {
      type: "checkbox", role: "switch", checked: config.autoExtract,
      onchange: () => this.ctx.run(async () => {
        const on = auto.checked;
        await api.writeConfig({ autoExtract: on });
        this.ctx.notify(t(on ? "settings.autoOn" : "settings.autoOff"));
      }),
    });
    const controls = Object.entries(config).filter(([name]) => name !== "autoExtract")
      .map(([name, value]) => [name, control(name, value)]);
    const form = h("form", {
      class: "settings",
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
    }, controls.map(([name, input]) => field(t(`setting.${name}`), input)),
    h("button", { class: "primary" }, t("settings.save")));
    fill(this.element, 
      h("h2", { id: "settings-title" }, t("settings.title")),
      h("label", { class: "switch" }, auto, h("span", {}, t("settings.auto"))),
      form,
      h("h2", {}, t("compaction.title")),
      h("p", { class: "muted" }, t("compaction.hint")),
      h("div", { class: "bar" },
        h("button", { class: "primary", onclick: () => this.compact() }, t("compaction.run")),
        h("button", { onclick: () => this.undo() }, t("compaction.undo"))),
      compactions.items.length
        ? h("ul", { class: "plain", "aria-label": t("compaction.backups") },
          compactions.items.map((item) => h("li", {},
            t("compaction.backup", {
              date: formatDate(item.createdAt, this.ctx.language), count: item.count ?? "?",
            }))))
        : null);
  }

  compact() {
    return this.ctx.run(async () => {
      this.ctx.notify(this.describe(await this.ctx.api.compact()));
      await this.show();
    });
  }

  undo() {
    return this.ctx.run(async () => {
      this.ctx.notify(this.describe(await this.ctx.api.undoCompaction(), "undone"));
      await this.show();
    });
  }

  describe(answer, kind = "done") {
    if (answer.message) return this.ctx.t(`compaction.message.${answer.message}`, {}, answer.message);
    return this.ctx.t(`compaction.${kind}`, {
      before: answer.originalCount, after: answer.compactedCount,
    });
  }
}

function control(name, value) {
  if (typeof value === "boolean") return h("input", { type: "checkbox", checked: value });
  if (typeof value === "number") return h("input", { type: "number", value, step: 1, min: 0 });
  return h("select", {}, (CHOICES[name] ?? [value]).map((choice) =>
    h("option", { value: choice, selected: choice === value }, choice)));
}

function read(input) {
  if (input.type === "checkbox") return input.checked;
  if (input.type === "number") return Number(input.value);
  return input.value;
}

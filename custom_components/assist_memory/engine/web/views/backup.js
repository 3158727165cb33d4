import { field, fill, h } from "../dom.js";

// Export every memory to a JSON file, and import one (ids and times kept).
export class BackupView {
  constructor(ctx) {
    this.ctx = ctx;
    this.element = h("section", { "aria-labelledby": "backup-title" });
  }

  async show() {
    const { t } = this.ctx;
    const file = h("input", { type: "file", accept: "application/json,.json", required: true });
    const mode = h("select", {},
      h("option", { value: "merge" }, t("backup.merge")),
      h("option", { value: "replace" }, t("backup.replace")));
    fill(this.element, 
      h("h2", { id: "backup-title" }, t("backup.title")),
      h("p", { class: "muted" }, t("backup.exportHint")),
      h("button", { class: "primary", onclick: () => this.exportFile() }, t("backup.export")),
      h("h2", {}, t("backup.import")),
      h("form", {
        class: "form",
        onsubmit: (event) => {
          event.preventDefault();
          this.importFile(file.files[0], mode.value);
        },
      }, field(t("backup.file"), file), field(t("backup.mode"), mode),
      h("button", { class: "primary" }, t("backup.importButton"))));
  }

  exportFile() {
    return this.ctx.run(async () => {
      const document_ = await this.ctx.api.exportAll();
      const blob = new Blob([JSON.stringify(document_, null, 2)], { type: "application/json" });
      const link = h("a", {
        href: URL.createObjectURL(blob),
        download: `assist-memory-${new Date().toISOString().slice(0, 10)}.json`,
      });
      this.element.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
      this.ctx.notify(this.ctx.t("backup.exported", { count: document_.count }));
    });
  }

  importFile(file, mode) {
    return this.ctx.run(async () => {
      let document_;
      try {
        document_ = JSON.parse(await file.text());
      } catch {
        throw new Error(this.ctx.t("backup.notJson"));
      }
      const result = await this.ctx.api.importAll(document_, mode);
      this.ctx.notify(this.ctx.t("backup.imported", result));
    });
  }
}

import { showDialog } from "../dialog.js";
import { field, fill, h } from "../dom.js";
import { download, exportFile, FORMATS } from "../exports.js";

// Export the memories (all, or those the memories view shows) as JSON, Markdown or
// CSV, and import a JSON export (ids and times kept). Replacing everything is asked
// first; an import over the memory limit says how to raise it.
export class BackupView {
  constructor(ctx) {
    this.ctx = ctx;
    this.element = h("section", { "aria-labelledby": "backup-title" });
  }

  async show() {
    const { t } = this.ctx;
    const format = h("select", {}, FORMATS.map((value) =>
      h("option", { value }, t(`backup.format.${value}`))));
    const which = h("select", {},
      h("option", { value: "all" }, t("backup.which.all")),
      h("option", { value: "shown" }, t("backup.which.shown")));
    const file = h("input", { type: "file", accept: "application/json,.json", required: true });
    const mode = h("select", {},
      h("option", { value: "merge" }, t("backup.merge")),
      h("option", { value: "replace" }, t("backup.replace")));
    fill(this.element,
      h("h2", { id: "backup-title" }, t("backup.title")),
      h("p", { class: "muted" }, t("backup.exportHint")),
      h("div", { class: "filters" },
        field(t("backup.format"), format), field(t("backup.which"), which)),
      h("button", {
        class: "primary", onclick: () => this.exportFile(format.value, which.value),
      }, t("backup.export")),
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

  exportFile(format, which) {
    const { api, t, people, shownFilter } = this.ctx;
    return this.ctx.run(async () => {
      const [document_] = await Promise.all([api.exportAll(), people.load()]);
      const file = exportFile(document_, format, {
        keep: which === "shown" ? shownFilter() : undefined,
        personName: (scope) => people.name(scope),
        t,
      });
      download(this.element, file);
      this.ctx.notify(t("backup.exported", { count: file.count }));
    });
  }

  async importFile(file, mode) {
    const { api, t } = this.ctx;
    let document_;
    try {
      document_ = JSON.parse(await file.text());
    } catch {
      this.ctx.run(() => { throw new ImportProblem("not_json"); });
      return;
    }
    const incoming = Array.isArray(document_) ? document_.length
      : document_?.memories?.length ?? 0;
    if (mode === "replace") {
      const { count } = await api.stats();
      const answer = await showDialog(this.ctx.root, {
        title: t("backup.replaceTitle"),
        content: h("p", {}, t("backup.replaceWarning", { current: count, incoming })),
        buttons: [{ label: t("backup.replaceConfirm"), value: "replace", danger: true }],
        cancelLabel: t("cancel"),
      });
      if (answer !== "replace") return;
    }
    await this.ctx.run(async () => {
      try {
        const result = await api.importAll(document_, mode);
        // The same file again: every memory in it is here as it is.
        this.ctx.notify(result.added || result.updated
          ? t("backup.imported", result) : t("backup.unchanged", result));
      } catch (err) {
        if (err.code !== "memory_full") throw err;
        throw new ImportProblem("too_many", { count: incoming, ...err.placeholders });
      }
    });
  }
}

// A problem of the file itself, told in the reader's language (see errors.js).
class ImportProblem extends Error {
  constructor(kind, placeholders = {}) {
    super(kind);
    this.code = `import_${kind}`;
    this.placeholders = placeholders;
  }
}

import { field, fill, h } from "../dom.js";

// MEMORY.md and the user profile: two Markdown documents edited as text.
export class DocumentsView {
  constructor(ctx) {
    this.ctx = ctx;
    this.scope = "household";
    this.element = h("section", { "aria-labelledby": "documents-title" });
  }

  async show() {
    const { api, t } = this.ctx;
    const [main, profile] = await Promise.all([api.readMain(), api.readProfile(this.scope)]);
    const mainText = h("textarea", { rows: 14, class: "code", value: main.content });
    const profileText = h("textarea", { rows: 10, class: "code", value: profile.content });
    const scope = h("input", {
      value: this.scope,
      onchange: (event) => {
        this.scope = event.target.value.trim() || "household";
        this.ctx.run(() => this.show());
      },
    });
    fill(this.element, 
      h("h2", { id: "documents-title" }, t("documents.title")),
      h("p", { class: "muted" }, t("documents.mainHint")),
      field("MEMORY.md", mainText),
      h("button", {
        class: "primary",
        onclick: () => this.ctx.run(async () => {
          const result = await api.writeMain(mainText.value);
          mainText.value = result.content;
          this.ctx.notify(t("documents.mainSaved", result));
        }),
      }, t("documents.saveMain")),
      h("h2", {}, t("documents.profile")),
      field(t("memories.scope"), scope),
      field(t("documents.profileText"), profileText),
      h("button", {
        class: "primary",
        onclick: () => this.ctx.run(async () => {
          await api.writeProfile(this.scope, profileText.value);
          this.ctx.notify(t("documents.profileSaved"));
        }),
      }, t("documents.saveProfile")));
  }
}

import { field, fill, h } from "../dom.js";
import { HOUSEHOLD } from "../people.js";

// A person's section of MEMORY.md: its header names them by a comment, which is what
// counts when the file is read back; the header's text is theirs to word.
const PERSON_HEADER = /^# .*<!--[ \t]*person[ \t]+(\S+)[ \t]*-->[ \t]*$/gmu;

// MEMORY.md (every memory, a section per person, each shown by name) and the user
// profile: two Markdown documents edited as text. The profile is the household's or
// one person's, picked by name.
export class DocumentsView {
  constructor(ctx) {
    this.ctx = ctx;
    this.scope = HOUSEHOLD;
    this.element = h("section", { "aria-labelledby": "documents-title" });
  }

  async show() {
    const { api, t } = this.ctx;
    const { people } = this.ctx;
    const [main, profile] = await Promise.all([
      api.readMain(), api.readProfile(this.scope), people.load(),
    ]);
    // A person's header with their name (as the file says it where none is known).
    const named = (text) => text.replace(PERSON_HEADER, (line, scope) => {
      const name = people.knownName(scope);
      return name ? `# ${name} <!-- person ${scope} -->` : line;
    });
    const mainText = h("textarea", { rows: 14, class: "code", value: named(main.content) });
    const profileText = h("textarea", { rows: 10, class: "code", value: profile.content });
    // Household first, then each person (the scopes memories and profiles use).
    const scope = h("select", {
      onchange: (event) => {
        this.scope = event.target.value;
        this.ctx.run(() => this.show());
      },
    }, [...new Set([...people.scopes(), this.scope])].map((value) =>
      h("option", { value, selected: value === this.scope }, people.name(value))));
    fill(this.element, 
      h("h2", { id: "documents-title" }, t("documents.title")),
      h("p", { class: "muted" }, t("documents.mainHint")),
      field("MEMORY.md", mainText),
      h("button", {
        class: "primary",
        onclick: () => this.ctx.run(async () => {
          const result = await api.writeMain(mainText.value);
          mainText.value = named(result.content);
          this.ctx.notify(t("documents.mainSaved", result));
        }),
      }, t("documents.saveMain")),
      h("h2", {}, t("documents.profile")),
      field(t("documents.profileOf"), scope),
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

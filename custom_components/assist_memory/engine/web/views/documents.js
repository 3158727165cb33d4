import { field, fill, h } from "../dom.js";
import { HOUSEHOLD } from "../people.js";

// A person's section of MEMORY.md: in the file its header names them by a comment
// (`# Anna <!-- person 8f14… -->`), which is what counts when the file is read back.
// Here the header is the person's name alone; saving puts the comment back for each
// header that is a person's name (a name two people share keeps its comment shown).
const PERSON_HEADER = /^# .*<!--[ \t]*person[ \t]+(\S+)[ \t]*-->[ \t]*$/gmu;
const PLAIN_HEADER = /^# (.+?)[ \t]*$/gmu;

// Each person's name -> their scope, for the names only one person has.
function byName(people, scopes) {
  const found = new Map();
  for (const scope of new Set(scopes)) {
    if (scope === HOUSEHOLD) continue;
    const name = people.name(scope);
    found.set(name, found.has(name) ? null : scope);
  }
  return new Map([...found].filter(([, scope]) => scope !== null));
}

// MEMORY.md as shown: each person's header their name alone.
export function namedHeaders(text, people) {
  const shown = [...text.matchAll(PERSON_HEADER)].map((match) => match[1]);
  const names = byName(people, [...people.scopes(), ...shown]);
  return text.replace(PERSON_HEADER, (line, scope) => {
    const name = people.name(scope);
    return names.get(name) === scope ? `# ${name}` : line;
  });
}

// MEMORY.md as saved: a header that is a person's name names them again by comment.
export function scopedHeaders(text, people) {
  const names = byName(people, people.scopes());
  return text.replace(PLAIN_HEADER, (line, title) => {
    const scope = names.get(title);
    return scope && !title.includes("<!--") ? `# ${title} <!-- person ${scope} -->` : line;
  });
}

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
    const mainText = h("textarea", {
      rows: 14, class: "code", value: namedHeaders(main.content, people),
    });
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
          const result = await api.writeMain(scopedHeaders(mainText.value, people));
          mainText.value = namedHeaders(result.content, people);
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

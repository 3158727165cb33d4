import { h } from "./dom.js";

export const HOUSEHOLD = "household";

// Whom a memory is about, by name: in Home Assistant its users' names (a person's
// name and picture when the user has a person); elsewhere (the memory server knows
// no names) "Person 1", "Person 2"... in the order they are first seen. Never a raw
// user id.
export class People {
  constructor(transport, t) {
    this.transport = transport;
    this.t = t;
    this.known = new Map(); // user id -> {name, picture}
    this.numbered = new Map(); // user id -> its number, for names the host does not give
  }

  async load() {
    if (this.loaded) return;
    this.loaded = true;
    try {
      for (const person of (await this.transport.people?.()) ?? []) {
        this.known.set(person.id, person);
      }
    } catch (err) {
      this.loaded = false; // asked again with the next view
      throw err;
    }
  }

  // Every scope to choose from: the household, the people, anyone else seen.
  scopes() {
    return [...new Set([HOUSEHOLD, ...this.known.keys(), ...this.numbered.keys()])];
  }

  // The name the host gives this scope, or null (no number made up).
  knownName(scope) {
    return this.known.get(scope)?.name ?? null;
  }

  name(scope) {
    if (scope === HOUSEHOLD) return this.t("people.household");
    const person = this.known.get(scope);
    if (person) return person.name;
    if (!this.numbered.has(scope)) this.numbered.set(scope, this.numbered.size + 1);
    return this.t("people.numbered", { number: this.numbered.get(scope) });
  }

  // The person's picture (when Home Assistant has one) and name.
  badge(scope) {
    const picture = this.known.get(scope)?.picture;
    return h("span", { class: "person" },
      picture ? h("img", { src: picture, alt: "", width: 20, height: 20 }) : null,
      this.name(scope));
  }
}

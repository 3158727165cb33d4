import { MemoryApi } from "./api.js";
import { field, h } from "./dom.js";
import { translator } from "./i18n.js";
import { STYLES } from "./styles.js";
import { BackupView } from "./views/backup.js";
import { DailyView } from "./views/daily.js";
import { DocumentsView } from "./views/documents.js";
import { MemoriesView } from "./views/memories.js";
import { SearchView } from "./views/search.js";
import { SessionsView } from "./views/sessions.js";
import { SettingsView } from "./views/settings.js";

const TABS = [
  ["memories", MemoriesView],
  ["search", SearchView],
  ["documents", DocumentsView],
  ["daily", DailyView],
  ["sessions", SessionsView],
  ["settings", SettingsView],
  ["backup", BackupView],
];

// The memory manager. Give it `transport` (REST or Home Assistant) and `language`;
// `header` may hold an element for the start of the top bar (the panel's menu button).
export class AssistMemoryApp extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: "open" });
    this.tab = "memories";
    this.views = null;
  }

  set transport(transport) {
    this._transport = transport;
    this.api = new MemoryApi(transport);
    this.start();
  }

  get transport() { return this._transport; }

  set language(language) {
    if (language === this._language) return;
    this._language = language;
    this.views = null;
    this.start();
  }

  get language() { return this._language; }

  connectedCallback() { this.start(); }

  // (Re)builds the shell once both a transport and a language are known.
  start() {
    if (!this.isConnected || !this.api || !this._language || this.views) return;
    const t = translator(this._language);
    this.t = t;
    const ctx = {
      api: this.api, t, language: this._language, root: this.shadowRoot,
      notify: (text) => this.notify(text),
      run: (task) => this.run(task),
    };
    this.views = Object.fromEntries(TABS.map(([name, View]) => [name, new View(ctx)]));
    this.status = h("p", { class: "status", role: "status", "aria-live": "polite" });
    this.alert = h("p", { class: "alert", role: "alert", hidden: true });
    this.main = h("main", { role: "tabpanel" });
    this.tabs = h("nav", { class: "tabs", role: "tablist", "aria-label": t("app.sections") },
      TABS.map(([name]) => h("button", {
        role: "tab", id: `tab-${name}`, onclick: () => this.select(name),
      }, t(`tab.${name}`))));
    this.setAttribute("lang", this._language);
    this.shadowRoot.replaceChildren(
      h("style", {}, STYLES),
      h("header", {}, this.header ?? null, h("h1", {}, t("app.title"))),
      this.tabs, this.main, this.alert, this.status);
    this.select(this.tab);
  }

  select(name) {
    this.tab = name;
    for (const tab of this.tabs.children) {
      tab.setAttribute("aria-selected", String(tab.id === `tab-${name}`));
    }
    this.main.setAttribute("aria-labelledby", `tab-${name}`);
    this.main.replaceChildren(this.views[name].element);
    this.run(() => this.views[name].show());
  }

  notify(text) {
    this.status.textContent = text;
  }

  // Runs a task of a view: shows its error (translated when the code is known), and
  // the token prompt when the server asks for one.
  async run(task) {
    this.alert.hidden = true;
    this.notify("");
    this.setAttribute("aria-busy", "true");
    try {
      await task();
    } catch (err) {
      if (this.transport.needsToken) {
        this.askToken();
      } else {
        this.alert.textContent = this.t(`error.${err.code}`, {}, err.message);
        this.alert.hidden = false;
      }
    } finally {
      this.removeAttribute("aria-busy");
    }
  }

  askToken() {
    const t = this.t;
    const input = h("input", { type: "password", required: true, autocomplete: "off" });
    this.main.replaceChildren(h("form", {
      class: "form token",
      onsubmit: (event) => {
        event.preventDefault();
        this.transport.setToken(input.value);
        this.select(this.tab);
      },
    }, h("h2", {}, t("token.title")), h("p", {}, t("token.hint")),
    field(t("token.label"), input), h("button", { class: "primary" }, t("token.submit"))));
  }
}

customElements.define("assist-memory-app", AssistMemoryApp);

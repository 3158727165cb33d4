import { MemoryApi } from "./api.js";
import { field, h } from "./dom.js";
import { People } from "./people.js";
import { describeError } from "./errors.js";
import { translator } from "./i18n.js";
import { STYLES } from "./styles.js";
import { BackupView } from "./views/backup.js";
import { DailyView } from "./views/daily.js";
import { DocumentsView } from "./views/documents.js";
import { MemoriesView } from "./views/memories.js";
import { ReviewView } from "./views/review.js";
import { SessionsView } from "./views/sessions.js";
import { SettingsView } from "./views/settings.js";

// Changes in a burst (an import, a learning pass) refresh the view once.
const REFRESH_PAUSE_MS = 300;

// "About me" (a person's own memories and conversations) shows these only.
const PERSONAL_TABS = ["memories", "sessions"];

const TABS = [
  ["memories", MemoriesView],
  ["review", ReviewView],
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
    const personal = Boolean(this.transport.personal);
    const tabs = TABS.filter(([name]) => !personal || PERSONAL_TABS.includes(name));
    this.tabNames = tabs.map(([name]) => name);
    const ctx = {
      api: this.api, t, language: this._language, root: this.shadowRoot, personal,
      notify: (text, action) => this.notify(text, action),
      run: (task) => this.run(task),
      describe: (err) => describeError(err, t),
      people: new People(this.api.transport, t),
      shownFilter: () => this.views.memories.shownFilter(),
      editMemory: (memory, after) => this.views.memories.edit(memory, after),
      openConversation: (sessionId) => {
        this.views.sessions.opening = sessionId;
        this.select("sessions");
      },
    };
    this.views = Object.fromEntries(tabs.map(([name, View]) => [name, new View(ctx)]));
    // Messages sit at the top of the view (kept in sight while scrolling): what was
    // done (with Undo where it can be), or what went wrong (with Retry).
    this.statusText = h("span");
    this.statusAction = h("button", { class: "text", hidden: true });
    this.status = h("p", { class: "status", role: "status", "aria-live": "polite" },
      this.statusText, this.statusAction);
    this.alertText = h("span");
    this.retry = h("button", { class: "text", hidden: true }, t("retry"));
    this.alert = h("p", { class: "alert", role: "alert", hidden: true },
      this.alertText, this.retry);
    // The main landmark holds the tab panel (a role on <main> itself would hide it).
    this.panel = h("div", { role: "tabpanel", id: "panel", tabindex: "0" });
    this.main = h("main", {}, this.panel);
    // The WAI-ARIA tabs pattern: one tab in the Tab order, arrow keys move along.
    this.tabs = h("div", {
      class: "tabs", role: "tablist", "aria-label": t("app.sections"),
      onkeydown: (event) => this.moveTab(event),
    }, tabs.map(([name]) => h("button", {
      role: "tab", id: `tab-${name}`, "aria-controls": "panel",
      onclick: () => this.select(name),
    }, t(`tab.${name}`))));
    this.setAttribute("lang", this._language);
    this.shadowRoot.replaceChildren(
      h("style", {}, STYLES),
      h("header", {}, this.header ?? null, h("h1", {}, t(personal ? "app.meTitle" : "app.title"))),
      this.tabs, h("div", { class: "messages" }, this.alert, this.status), this.main);
    this.select(this.tab);
    if (!this.subscribed) {
      this.subscribed = true;
      this.transport.subscribe?.(() => this.refreshSoon());
    }
  }

  // Memories changed elsewhere (learned in a conversation, another page): the list,
  // counts and conversations on screen follow, quietly (a failure waits for the next).
  refreshSoon() {
    clearTimeout(this.refreshing);
    this.refreshing = setTimeout(() => {
      if (["memories", "review", "sessions"].includes(this.tab) && this.views[this.tab]) {
        this.views[this.tab].show().catch(() => {});
      }
    }, REFRESH_PAUSE_MS);
  }

  select(name) {
    this.tab = name;
    for (const tab of this.tabs.children) {
      const selected = tab.id === `tab-${name}`;
      tab.setAttribute("aria-selected", String(selected));
      tab.tabIndex = selected ? 0 : -1;
    }
    this.panel.setAttribute("aria-labelledby", `tab-${name}`);
    this.panel.replaceChildren(this.views[name].element);
    this.run(() => this.views[name].show());
  }

  moveTab(event) {
    const names = this.tabNames;
    const at = names.indexOf(this.tab);
    const to = {
      ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: names.length - 1,
    }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    const name = names[(to + names.length) % names.length];
    this.select(name);
    this.shadowRoot.getElementById(`tab-${name}`).focus();
  }

  // A message of what was done; `action` ({label, run}) adds a button such as Undo.
  notify(text, action = null) {
    this.statusText.textContent = text;
    this.statusAction.hidden = !action;
    this.statusAction.textContent = "";
    if (action) {
      this.statusAction.textContent = action.label;
      this.statusAction.onclick = () => {
        this.statusAction.hidden = true;
        this.run(action.run);
      };
    }
  }

  // Runs a task of a view: shows its error in the reader's language with Retry, and
  // the token prompt when the server asks for one. Answers whether it succeeded.
  async run(task) {
    this.alert.hidden = true;
    this.notify("");
    this.setAttribute("aria-busy", "true");
    try {
      await task();
      return true;
    } catch (err) {
      if (this.transport.needsToken) {
        this.askToken();
      } else {
        this.alertText.textContent = describeError(err, this.t);
        this.retry.hidden = false;
        this.retry.onclick = () => this.run(task);
        this.alert.hidden = false;
      }
      return false;
    } finally {
      this.removeAttribute("aria-busy");
    }
  }

  askToken() {
    const t = this.t;
    const input = h("input", { type: "password", required: true, autocomplete: "off" });
    this.panel.replaceChildren(h("form", {
      class: "form token",
      onsubmit: (event) => {
        event.preventDefault();
        this.transport.setToken(input.value);
        this.select(this.tab);
      },
    }, h("h2", {}, t("token.title")),
    this.transport.tokenRefused ? h("p", { class: "alert", role: "alert" }, t("token.refused"))
      : null,
    h("p", {}, t("token.hint")),
    field(t("token.label"), input), h("button", { class: "primary" }, t("token.submit"))));
  }
}

customElements.define("assist-memory-app", AssistMemoryApp);

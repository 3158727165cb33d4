// The Home Assistant sidebar panel: the manager over the integration's websocket
// command, in Home Assistant's language, with its menu button on narrow screens.
import "./app.js";
import { pickLanguage } from "./i18n.js";
import { HaTransport } from "./transport-ha.js";
import { MeTransport } from "./transport-me.js";

class AssistMemoryPanel extends HTMLElement {
  set hass(hass) {
    if (!this.app) this.create(hass);
    this.transport.hass = hass;
    this.menu.hass = hass;
    this.app.language = pickLanguage(hass.language);
    // Home Assistant's theme, light or dark, whatever the system's preference.
    this.app.setAttribute("theme", hass.themes?.darkMode ? "dark" : "light");
  }

  set narrow(narrow) {
    this.menu ??= document.createElement("ha-menu-button");
    this.menu.narrow = narrow;
  }

  create(hass) {
    // The panel scrolls itself (its parent grows with it): then the messages at the
    // top of the view stay in sight however far down the list the person is.
    this.style.cssText = "display: block; height: 100vh; height: 100dvh; overflow-y: auto;";
    this.menu ??= document.createElement("ha-menu-button");
    this.transport = this.newTransport(hass);
    this.app = document.createElement("assist-memory-app");
    this.app.header = this.menu;
    this.app.transport = this.transport;
    this.app.language = pickLanguage(hass.language);
    this.append(this.app);
  }

  newTransport(hass) { return new HaTransport(hass); }
}

// "About me": any user's own memories and conversations.
class AssistMemoryMePanel extends AssistMemoryPanel {
  newTransport(hass) { return new MeTransport(hass); }
}

customElements.define("assist-memory-panel", AssistMemoryPanel);
customElements.define("assist-memory-me-panel", AssistMemoryMePanel);

// The standalone and add-on (ingress) entry: the REST transport, the browser's language.
import "./app.js";
import { pickLanguage } from "./i18n.js";
import { RestTransport } from "./transport-rest.js";

const app = document.querySelector("assist-memory-app");
app.language = pickLanguage(navigator.languages?.[0] ?? navigator.language);
app.transport = new RestTransport();

// A link with #token=... opened in a tab that already shows the manager.
addEventListener("hashchange", () => {
  if (location.hash.startsWith("#token=")) location.reload();
});

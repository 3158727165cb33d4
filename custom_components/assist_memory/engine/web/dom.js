// A tiny DOM builder: h("button", {onclick, "aria-label": "..."}, "text", child, ...).
// Properties that exist on the element (value, checked, onclick...) are set as
// properties, everything else as attributes; null/undefined/false children are skipped.
export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") || (name in element && !name.includes("-"))) {
      element[name] = value;
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(element, children);
  return element;
}

// Replaces an element's children, skipping null/undefined/false as h() does.
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
}

function append(element, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : String(child));
  }
}

// A labelled form field: the label wraps the control, so getByLabel finds it.
export function field(label, control, hint) {
  return h("label", { class: "field" }, h("span", { class: "label" }, label), control,
    hint ? h("small", { class: "hint" }, hint) : null);
}

// One formatter per language: making one costs more than formatting many dates.
const DATE_FORMATS = new Map();

export function formatDate(value, language) {
  if (!value) return "";
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  if (!DATE_FORMATS.has(language)) {
    DATE_FORMATS.set(language, new Intl.DateTimeFormat(language,
      { dateStyle: "medium", timeStyle: "short" }));
  }
  return DATE_FORMATS.get(language).format(date);
}

// A memory as shown: its first letter capitalised ("my favourite colour is blue" reads
// "My favourite colour is blue"); it stays stored as written.
export function capitalised(text) {
  const first = String(text ?? "").match(/^\s*(\p{Ll})/u);
  if (!first) return text;
  const at = first[0].length - first[1].length;
  return text.slice(0, at) + first[1].toLocaleUpperCase() + text.slice(at + first[1].length);
}

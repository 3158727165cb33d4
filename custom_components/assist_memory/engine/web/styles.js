// The manager's styles. Colours come from Home Assistant's theme variables when the
// panel runs inside it (the panel sets theme="light|dark" from Home Assistant's own),
// else from light/dark defaults (prefers-color-scheme). A theme's accent and error
// colours are often too pale for text (Home Assistant's default blue is 2.7:1 on
// white): text and filled buttons use them mixed towards black (light) or white
// (dark), which keeps every pairing at 4.5:1 or more.
const DARK = `
    --am-bg: var(--primary-background-color, #111418);
    --am-card: var(--card-background-color, #1c2128);
    --am-text: var(--primary-text-color, #e6e8eb);
    --am-muted: var(--secondary-text-color, #9aa4b2);
    --am-line: var(--divider-color, #313842);
    --am-accent: var(--primary-color, #58a6ff);
    --am-danger: var(--error-color, #f0716b);
    --am-accent-ink: color-mix(in srgb, var(--am-accent) 55%, #fff);
    --am-danger-ink: color-mix(in srgb, var(--am-danger) 55%, #fff);
`;

export const STYLES = `
:host {
  --am-bg: var(--primary-background-color, #f6f7f9);
  --am-card: var(--card-background-color, #ffffff);
  --am-text: var(--primary-text-color, #1c1f24);
  --am-muted: var(--secondary-text-color, #5b6470);
  --am-line: var(--divider-color, #d9dde3);
  --am-accent: var(--primary-color, #1f6feb);
  --am-danger: var(--error-color, #c62828);
  --am-accent-ink: color-mix(in srgb, var(--am-accent) 60%, #000);
  --am-danger-ink: color-mix(in srgb, var(--am-danger) 70%, #000);
  /* Filled buttons: white text on the accent darkened, in both themes. */
  --am-accent-fill: color-mix(in srgb, var(--am-accent) 60%, #000);
  display: block;
  min-height: 100%;
  background: var(--am-bg);
  color: var(--am-text);
  font-family: var(--mdc-typography-font-family, var(--paper-font-body1_-_font-family, Roboto, system-ui, sans-serif));
  font-size: 15px;
  line-height: 1.45;
}
:host([theme="dark"]) {${DARK}}
@media (prefers-color-scheme: dark) {
  :host(:not([theme])) {${DARK}}
}
* { box-sizing: border-box; }
header {
  display: flex; align-items: center; gap: 8px; padding: 0 16px; min-height: 56px;
  background: var(--app-header-background-color, var(--am-card));
  color: var(--app-header-text-color, var(--am-text));
  border-bottom: 1px solid var(--am-line);
}
h1 { font-size: 20px; font-weight: 500; margin: 0; }
h2 { font-size: 17px; margin: 20px 0 8px; }
.tabs {
  display: flex; gap: 4px; overflow-x: auto; padding: 8px 16px 0;
  border-bottom: 1px solid var(--am-line); background: var(--am-card);
}
.tabs button {
  border: none; border-bottom: 3px solid transparent; border-radius: 0;
  background: none; color: var(--am-muted); white-space: nowrap; padding: 8px 12px;
}
.tabs button[aria-selected="true"] { color: var(--am-text); border-bottom-color: var(--am-accent); font-weight: 500; }
main { padding: 8px 16px 32px; max-width: 960px; margin: 0 auto; }
button {
  font: inherit; cursor: pointer; padding: 7px 14px; border-radius: 6px;
  border: 1px solid var(--am-line); background: var(--am-card); color: var(--am-text);
  min-height: 36px;
}
button:disabled { opacity: .5; cursor: default; }
button.primary { background: var(--am-accent-fill); border-color: var(--am-accent-fill); color: #fff; }
button.danger { color: var(--am-danger-ink); border-color: var(--am-danger-ink); }
button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible {
  outline: 2px solid var(--am-accent); outline-offset: 1px;
}
input, select, textarea {
  font: inherit; color: var(--am-text); background: var(--am-card);
  border: 1px solid var(--am-line); border-radius: 6px; padding: 6px 8px; min-height: 36px;
  max-width: 100%;
}
textarea { width: 100%; resize: vertical; }
.code { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: 13px; }
pre.code { white-space: pre-wrap; background: var(--am-card); padding: 12px; border-radius: 6px;
  border: 1px solid var(--am-line); overflow-x: auto; }
.field { display: flex; flex-direction: column; gap: 4px; margin: 8px 0; }
/* A switch: the box, its label beside it, its help below the label; a whole row. */
.field:has(> input[type=checkbox]) { display: grid; grid-template-columns: auto 1fr; align-items: center; gap: 2px 10px; grid-column: 1 / -1; }
.field:has(> input[type=checkbox]) > input { grid-row: 1; grid-column: 1; }
.field:has(> input[type=checkbox]) > .label { grid-row: 1; grid-column: 2; font-size: inherit; color: var(--am-text); }
.field:has(> input[type=checkbox]) > .hint { grid-column: 2; }
.field input[type=checkbox] { width: 20px; height: 20px; min-height: 0; }
.field .label { font-size: 13px; color: var(--am-muted); }
.with-unit { display: flex; align-items: center; gap: 8px; }
.with-unit input { flex: 1; min-width: 0; }
.hint { color: var(--am-muted); }
.bar { display: flex; flex-wrap: wrap; align-items: end; gap: 8px; margin: 8px 0; }
.bar .field { margin: 0; flex: 0 1 320px; }
.bar h2 { flex: 1 1 auto; }
.filters { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 0 12px; }
.cards { list-style: none; padding: 0; margin: 0; display: grid; gap: 8px; }
.card { background: var(--am-card); border: 1px solid var(--am-line); border-radius: 8px; padding: 10px 14px; }
.card p { margin: 4px 0; }
.content { font-size: 16px; overflow-wrap: anywhere; }
.meta { display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: center; color: var(--am-muted); font-size: 13px; }
.chip { border: 1px solid var(--am-line); border-radius: 12px; padding: 0 8px; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; justify-content: flex-end; }
.score { font-weight: 600; }
.parts { display: grid; grid-template-columns: repeat(auto-fill, minmax(130px, 1fr)); gap: 2px 12px; margin: 6px 0 0; font-size: 13px; }
.parts dt { color: var(--am-muted); }
.parts dd { margin: 0 0 4px; }
.muted, .empty { color: var(--am-muted); }
/* At the top of the view, kept in sight while the page scrolls. */
.messages { position: sticky; top: 0; z-index: 2; max-width: 960px; margin: 0 auto; padding: 0 16px; }
.messages:has(.status:not(:has(span:empty)), .alert:not([hidden])) { padding-top: 8px; }
.status:has(span:empty) { display: none; }
.status, .alert { display: flex; align-items: center; gap: 12px; margin: 0 0 6px; padding: 6px 12px; border-radius: 6px; background: var(--am-card); border: 1px solid var(--am-line); box-shadow: 0 2px 8px rgb(0 0 0 / 25%); }
.status > span, .alert > span { flex: 1 1 auto; }
.alert { border-color: var(--am-danger-ink); color: var(--am-danger-ink); }
.alert[hidden] { display: none; }
dialog .alert { box-shadow: none; }
button.text { border-color: transparent; background: none; color: var(--am-accent-ink); font-weight: 500; }
button[hidden] { display: none; }
.switch { display: flex; align-items: center; gap: 10px; font-weight: 600; margin: 8px 0 16px; }
.switch input { width: 22px; height: 22px; }
.settings { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 0 16px; }
.days { display: flex; flex-wrap: wrap; gap: 6px; margin: 8px 0; }
.days button[aria-pressed="true"] { border-color: var(--am-accent-ink); color: var(--am-accent-ink); }
.plain { padding-left: 20px; color: var(--am-muted); }
dialog {
  background: var(--am-card); color: var(--am-text); border: 1px solid var(--am-line);
  border-radius: 10px; width: min(520px, calc(100vw - 24px)); padding: 16px 20px;
}
dialog::backdrop { background: rgb(0 0 0 / 45%); }
dialog h2 { margin-top: 0; }
dialog .actions { margin-top: 16px; }
.messages-list { list-style: none; padding: 0; margin: 8px 0; display: grid; gap: 6px; }
.messages-list .answer { padding-left: 12px; border-left: 3px solid var(--am-line); }
.why summary { color: var(--am-accent-ink); cursor: pointer; margin-top: 4px; }
.why p, .why ul { margin: 4px 0; }
.capacity label { display: flex; align-items: center; gap: 10px; color: var(--am-muted); font-size: 13px; }
.capacity progress { flex: 0 1 200px; height: 8px; accent-color: var(--am-accent); }
.capacity.warn progress { accent-color: var(--am-danger); }
.capacity.warn p { color: var(--am-danger-ink); margin: 4px 0; }
.person { display: inline-flex; align-items: center; gap: 4px; }
.person img { border-radius: 50%; object-fit: cover; }
/* A find-in-page yellow with black text, in light and dark themes alike (15:1). */
mark { background: #ffe082; color: #1a1a1a; border-radius: 2px; }
.card .select { float: left; margin: 3px 10px 0 0; }
.card .select input { width: 18px; height: 18px; accent-color: var(--am-accent); }
.bulk:not(:empty) { display: flex; flex-wrap: wrap; align-items: end; gap: 8px; margin: 8px 0; padding: 8px 12px; border: 1px solid var(--am-accent); border-radius: 8px; background: var(--am-card); position: sticky; top: 0; z-index: 1; }
.bulk .field { margin: 0; }
.switch-row { margin: 8px 0 12px; }
.switch-row .switch { margin: 0; }
.switch-row .hint { margin: 2px 0 0 32px; }
details.advanced { margin: 12px 0; }
details.advanced > summary { cursor: pointer; font-weight: 600; }
.diff { border: 1px solid var(--am-line); border-radius: 8px; padding: 8px 14px; margin: 12px 0; background: var(--am-card); }
.diff h3 { font-size: 15px; margin: 4px 0; }
.diff h4 { font-size: 13px; margin: 8px 0 4px; color: var(--am-muted); }
.diff-columns { display: grid; grid-template-columns: repeat(auto-fit, minmax(240px, 1fr)); gap: 0 16px; }
.diff ul { margin: 0; padding-left: 18px; }
.quote { border-left: 3px solid var(--am-line); padding-left: 10px; }
.card-foot { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 8px; }
.card-foot .origin { flex: 1 1 auto; }
.card-foot .origin[open] { flex-basis: 100%; }
.origin summary { cursor: pointer; color: var(--am-muted); font-size: 13px; }
.card-foot .actions { margin-left: auto; }
/* Filter chips, as Home Assistant draws them: one pressed per row, with a tick. */
.chip-row { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; margin: 6px 0; }
.chip-label { color: var(--am-muted); font-size: 13px; min-width: 150px; }
.filter-chip { border-radius: 8px; min-height: 32px; padding: 4px 12px; font-size: 14px; white-space: nowrap; }
.filter-chip[aria-pressed="true"] { background: color-mix(in srgb, var(--am-accent) 18%, var(--am-card)); border-color: var(--am-accent-ink); font-weight: 500; }
.filter-box > summary { cursor: pointer; color: var(--am-muted); font-size: 13px; margin: 4px 0; }
@media (max-width: 600px) {
  main { padding: 4px 10px 24px; }
  header { padding: 0 8px; }
  h2 { margin: 10px 0 6px; }
  .card { padding: 8px 10px; }
  .card-foot .actions button { min-height: 32px; padding: 4px 12px; }
  .messages { padding: 0 10px; }
  /* Every tab in sight: the row wraps (a row that scrolls hides most of them). */
  .tabs { flex-wrap: wrap; overflow-x: visible; gap: 0 2px; padding: 2px 8px 0; }
  .tabs button { padding: 6px 8px; min-height: 32px; font-size: 14px; }
  /* A row of chips scrolls sideways rather than taking the screen. */
  .chip-row { flex-wrap: nowrap; overflow-x: auto; }
  .chip-label { min-width: 0; }
}
`;

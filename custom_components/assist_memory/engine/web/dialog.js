import { h } from "./dom.js";

// A modal dialog in `host` (the app's shadow root). Resolves with the value of the
// button pressed, or null when cancelled (Escape, Cancel). Buttons other than Cancel
// submit the form, so the browser checks required fields first.
export function showDialog(host, { title, content, buttons, cancelLabel }) {
  return new Promise((resolve) => {
    const titleId = `dialog-title-${Math.random().toString(36).slice(2)}`;
    const dialog = h("dialog", { "aria-labelledby": titleId },
      h("form", { method: "dialog" },
        h("h2", { id: titleId }, title),
        content,
        h("div", { class: "actions" },
          h("button", { value: "", formNoValidate: true, type: "submit" }, cancelLabel),
          buttons.map((button) => h("button", {
            value: button.value, type: "submit",
            class: button.danger ? "danger" : "primary",
          }, button.label)))));
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(dialog.returnValue || null);
    });
    host.append(dialog);
    dialog.showModal();
  });
}

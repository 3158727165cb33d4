import { h } from "./dom.js";

// A modal dialog in `host` (the app's shadow root). Resolves with the value of the
// button pressed, or null when cancelled (Escape, Cancel). Buttons other than Cancel
// submit the form, so the browser checks required fields first.
//
// With `submit(value)`, the dialog stays open while it runs: when it fails, its error
// (`describe(err)`) shows inside the dialog and everything typed stays for another try.
export function showDialog(host, { title, content, buttons, cancelLabel, submit, describe }) {
  return new Promise((resolve) => {
    const titleId = `dialog-title-${Math.random().toString(36).slice(2)}`;
    const problem = submit ? h("p", { class: "alert", role: "alert", hidden: true }) : null;
    const form = h("form", { method: "dialog" },
      h("h2", { id: titleId }, title),
      content,
      problem,
      h("div", { class: "actions" },
        h("button", { value: "", formNoValidate: true, type: "submit" }, cancelLabel),
        buttons.map((button) => h("button", {
          value: button.value, type: "submit",
          class: button.danger ? "danger" : "primary",
        }, button.label))));
    const dialog = h("dialog", { "aria-labelledby": titleId }, form);
    if (submit) {
      form.addEventListener("submit", async (event) => {
        const value = event.submitter?.value ?? "";
        if (!value) return; // Cancel closes as usual.
        event.preventDefault();
        problem.hidden = true;
        dialog.setAttribute("aria-busy", "true");
        try {
          await submit(value);
          dialog.close(value);
        } catch (err) {
          problem.textContent = describe(err);
          problem.hidden = false;
        } finally {
          dialog.removeAttribute("aria-busy");
        }
      });
    }
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(dialog.returnValue || null);
    });
    host.append(dialog);
    dialog.showModal();
  });
}

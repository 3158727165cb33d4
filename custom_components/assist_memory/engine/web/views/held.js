import { h } from "../dom.js";
import { HOUSEHOLD } from "../people.js";

// Review's "Who said this?": facts held back from the memories (any reason: a voice
// device nobody could tell the speaker of, ...), each with the device and time it was
// said. A person says whose it is (a person, the household) or forgets it; with Undo.
// In Home Assistant, also who speaks at which device (read-only; the options change it).
export class HeldSection {
  constructor(ctx, refresh) {
    this.ctx = ctx;
    this.refresh = refresh;
    this.held = [];
    this.speakers = null;
  }

  async load() {
    const { api } = this.ctx;
    const [answer, speakers] = await Promise.all([
      api.held(), api.transport.speakers?.() ?? null,
    ]);
    this.held = answer.held;
    this.speakers = speakers;
    // Device names only Home Assistant knows.
    this.devices = new Map((speakers?.held ?? [])
      .concat((speakers?.people ?? []).flatMap((person) => person.devices
        .map((device) => ({ device }))))
      .filter((item) => item.device?.name)
      .map((item) => [item.device.id, item.device.name]));
  }

  render() {
    const { t } = this.ctx;
    return [
      h("h3", {}, t("held.title", { count: this.held.length })),
      h("p", { class: "meta" }, t("held.explain")),
      this.held.length
        ? h("ul", { class: "cards", "aria-label": t("held.list") },
          this.held.map((fact) => this.card(fact)))
        : h("p", { class: "empty" }, t("held.none")),
      this.speakers ? this.whoSpeaks() : null,
    ];
  }

  card(fact) {
    const { t, people, language } = this.ctx;
    const device = fact.device_id
      ? this.devices.get(fact.device_id) ?? t("held.someDevice") : t("held.noDevice");
    const time = new Date(fact.said_at).toLocaleString(language);
    const scopes = people.scopes().filter((scope) => scope !== HOUSEHOLD);
    const meta = h("p", { class: "meta" },
      h("span", {}, t(`held.reason.${fact.reason}`, {}, fact.reason)),
      h("span", {}, t("held.at", { device, time })));
    if (fact.scope) {
      // Whose it is is known (the memory was full): keep it once there is room.
      return h("li", { class: "card" },
        h("p", { class: "content" }, fact.content),
        meta,
        h("p", { class: "meta" }, t("held.for", { name: people.name(fact.scope) })),
        h("div", { class: "actions", role: "group", "aria-label": t("held.keepOrForget") },
          h("button", { class: "primary", onclick: () => this.assign(fact, fact.scope) },
            t("held.keep")),
          h("button", { class: "danger", onclick: () => this.forget(fact) },
            t("review.forget"))));
    }
    return h("li", { class: "card" },
      h("p", { class: "content" }, fact.content),
      meta,
      h("div", { class: "actions", role: "group", "aria-label": t("held.whose") },
        h("span", {}, t("held.whose")),
        [...scopes, HOUSEHOLD].map((scope) => h("button", {
          class: scope === HOUSEHOLD ? "" : "primary",
          onclick: () => this.assign(fact, scope),
        }, people.name(scope))),
        h("button", { class: "danger", onclick: () => this.forget(fact) },
          t("review.forget"))));
  }

  // The fact becomes the chosen person's memory (or the household's).
  assign(fact, scope) {
    const { api, t, people } = this.ctx;
    return this.ctx.run(async () => {
      // Stored first: when the memory refuses it (still full), it stays in Review.
      const memory = await api.add({
        content: fact.content,
        category: fact.category,
        scope,
        source: "user_stated",
        metadata: { learned_by: "review", held_reason: fact.reason },
        ...(fact.key ? { key: fact.key } : {}),
        ...(fact.session_id ? { session_id: fact.session_id } : {}),
      });
      await api.takeHeld(fact.id);
      await this.refresh();
      this.ctx.notify(t("held.assigned", { name: people.name(scope) }), {
        label: t("undo"),
        run: () => this.putBack(fact, memory.id),
      });
    });
  }

  forget(fact) {
    const { api, t } = this.ctx;
    return this.ctx.run(async () => {
      await api.takeHeld(fact.id);
      await this.refresh();
      this.ctx.notify(t("held.forgotten"), { label: t("undo"), run: () => this.putBack(fact) });
    });
  }

  async putBack(fact, memoryId = null) {
    const { api, t } = this.ctx;
    if (memoryId) await api.remove(memoryId).catch((err) => {
      if (err.status !== 404) throw err;
    });
    await api.hold(fact);
    await this.refresh();
    this.ctx.notify(t("held.back"));
  }

  // Each person's voice devices, guest devices and presence, as the options set them.
  whoSpeaks() {
    const { t } = this.ctx;
    const { people, guest_devices: guests, presence } = this.speakers;
    const names = (devices) => devices.map((device) => device.name ?? device.id).join(", ");
    return h("section", { "aria-labelledby": "speakers-title" },
      h("h3", { id: "speakers-title" }, t("speakers.title")),
      h("ul", { class: "speakers" },
        people.map((person) => h("li", {},
          h("strong", {}, person.name), ": ",
          person.devices.length ? names(person.devices) : t("speakers.noDevice"))),
        guests.length ? h("li", {}, t("speakers.guests", { devices: names(guests) })) : null),
      h("p", { class: "meta" }, t(presence ? "speakers.presenceOn" : "speakers.presenceOff")),
      h("a", { href: "/config/integrations/integration/assist_memory", target: "_top" },
        t("speakers.change")));
  }
}

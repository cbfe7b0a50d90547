// The step panel: the current step's four marks (with one-frame nudges), its four labels and
// its tags (tags.js), with inline validation. Every value is shown as text (textContent / input.value), never as
// markup.

import { clock, frameWords } from "./frames.js";
import { TEXT_FIELDS, TIME_FIELDS } from "./steps.js";
import { TagEditor } from "./tags.js";

export class StepPanel extends EventTarget {
  constructor(root, { store, index, readOnly = false }) {
    super();
    this.readOnly = readOnly; // fields readonly, no buttons (the server refuses writes too)
    this.root = root;
    this.store = store;
    this.index = index;
    this.id = null;
    this.title = root.querySelector("[data-role=step-title]");
    this.empty = root.querySelector("[data-role=empty]");
    this.body = root.querySelector("[data-role=body]");
    this.list = root.querySelector("[data-role=plausible]");
    this.historyButton = root.querySelector("[data-role=history-button]");
    this.tagEditor = new TagEditor(root.querySelector("[data-role=tags]"), { readOnly });
    // A tag change names its step: text left in the input is added to the step it was typed
    // for even when another step is being selected.
    this.tagEditor.addEventListener("change", (event) => {
      const { id, tags } = event.detail;
      if (id !== null) this.dispatchEvent(new CustomEvent("edit", { detail: { id, changes: { tags } } }));
    });
    for (const name of TEXT_FIELDS) {
      const field = this._field(name);
      field.addEventListener("input", () => this._edit({ [name]: field.value }));
    }
    root.querySelector("[data-action=plausible-add]")?.addEventListener("click", () => this.addPlausible());
    this.list.addEventListener("input", () => this._edit({ plausible_next_steps: this._plausibleValues() }));
    this.list.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-move]");
      if (!button) return;
      const row = button.closest("li");
      const i = [...this.list.children].indexOf(row);
      const move = button.dataset.move;
      if (move === "remove") this.removePlausible(i);
      else this.movePlausible(i, move === "up" ? -1 : 1);
    });
    this.list.addEventListener("keydown", (event) => this._plausibleKeys(event));
    root.querySelectorAll("[data-nudge]").forEach((button) => {
      button.addEventListener("click", () => {
        const mark = button.closest("[data-mark]").dataset.mark;
        this.dispatchEvent(new CustomEvent("nudge", { detail: { mark, delta: Number(button.dataset.nudge) } }));
      });
    });
    root.querySelectorAll("[data-mark] th").forEach((th) => {
      th.addEventListener("click", () => {
        this.dispatchEvent(new CustomEvent("select-mark", { detail: { mark: th.parentElement.dataset.mark } }));
      });
    });
  }

  _field(name) {
    return this.root.querySelector(`[name=${name}]`);
  }

  _edit(changes) {
    if (this.id === null) return;
    this.dispatchEvent(new CustomEvent("edit", { detail: { id: this.id, changes } }));
  }

  _plausibleValues() {
    return [...this.list.querySelectorAll("input")].map((input) => input.value);
  }

  show(id) {
    this.id = id;
    this.render();
  }

  get visible() {
    return !this.body.hidden;
  }

  // Enter from the page: the field gets the focus with its text selected, so typing replaces
  // it (→ or End puts the caret at the end to add to it instead).
  focusLabel(name = "local_intent") {
    if (this.id === null) return;
    const field = this._field(name);
    field.focus();
    field.select();
  }

  // t from the page: the tag input gets the focus.
  focusTags() {
    if (this.id === null || !this.visible) return;
    this.tagEditor.focus();
  }

  addPlausible(at = null) {
    const entry = this.store.get(this.id);
    if (!entry) return;
    const items = [...entry.local.plausible_next_steps];
    const i = at === null ? items.length : at;
    items.splice(i, 0, "");
    this._edit({ plausible_next_steps: items });
    this.render();
    this.list.querySelectorAll("input")[i]?.focus();
  }

  removePlausible(i) {
    const entry = this.store.get(this.id);
    if (!entry) return;
    const items = [...entry.local.plausible_next_steps];
    items.splice(i, 1);
    this._edit({ plausible_next_steps: items });
    this.render();
    const inputs = this.list.querySelectorAll("input");
    inputs[Math.min(i, inputs.length - 1)]?.focus();
  }

  movePlausible(i, delta) {
    const entry = this.store.get(this.id);
    if (!entry) return;
    const items = [...entry.local.plausible_next_steps];
    const j = i + delta;
    if (j < 0 || j >= items.length) return;
    [items[i], items[j]] = [items[j], items[i]];
    this._edit({ plausible_next_steps: items });
    this.render();
    this.list.querySelectorAll("input")[j]?.focus();
  }

  // Inside a plausible item: Enter adds one below, Alt+↑/↓ moves it, Backspace on empty removes.
  _plausibleKeys(event) {
    const input = event.target.closest("input");
    if (!input) return;
    const i = [...this.list.querySelectorAll("input")].indexOf(input);
    if (event.key === "Enter") {
      event.preventDefault();
      this.addPlausible(i + 1);
    } else if (event.altKey && (event.key === "ArrowUp" || event.key === "ArrowDown")) {
      event.preventDefault();
      this.movePlausible(i, event.key === "ArrowUp" ? -1 : 1);
    } else if (event.key === "Backspace" && input.value === "") {
      event.preventDefault();
      this.removePlausible(i);
    }
  }

  _plausibleRow(value) {
    const li = document.createElement("li");
    const input = document.createElement("input");
    input.type = "text";
    input.value = value;
    input.setAttribute("aria-label", "Plausible next step");
    input.placeholder = this.readOnly ? "" : "A plausible next step";
    input.readOnly = this.readOnly;
    li.append(input);
    if (this.readOnly) return li;
    for (const [move, text, title] of [["up", "↑", "Move up"], ["down", "↓", "Move down"], ["remove", "✕", "Remove"]]) {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.move = move;
      button.textContent = text;
      button.title = title;
      li.append(button);
    }
    return li;
  }

  render() {
    const entry = this.id === null ? null : this.store.get(this.id);
    const visible = Boolean(entry && entry.server.status === "active");
    this.body.hidden = !visible;
    this.empty.hidden = visible;
    this.historyButton.hidden = !visible;
    if (!visible) {
      this.title.textContent = "No step selected";
      return;
    }
    const position = this.store.active().indexOf(entry) + 1;
    this.title.textContent = `Step ${position} of ${this.store.active().length} · v${entry.server.version}`;
    const v = entry.local;
    for (const mark of TIME_FIELDS) {
      const row = this.root.querySelector(`[data-mark=${mark}]`);
      row.querySelector("[data-role=time]").textContent = clock(v[mark]);
      row.querySelector("[data-role=frame]").textContent = this._frameText(mark, v[mark]);
      row.dataset.value = String(v[mark]);
    }
    for (const name of TEXT_FIELDS) {
      const field = this._field(name);
      if (document.activeElement !== field && field.value !== v[name]) field.value = v[name];
    }
    const inputs = this.list.querySelectorAll("input");
    // An empty list still shows one blank item, so Tab from Next step lands in a field (the
    // server drops blank items); read-only, it says "none".
    const blank = this.readOnly ? [] : [""];
    const items = v.plausible_next_steps.length ? v.plausible_next_steps : blank;
    if (inputs.length !== items.length) {
      this.list.replaceChildren(...items.map((item) => this._plausibleRow(item)));
    } else {
      inputs.forEach((input, i) => {
        if (document.activeElement !== input && input.value !== items[i]) input.value = items[i];
      });
    }
    this.tagEditor.render(entry.id, v.tags, this.store.tagsInUse());
    this._renderErrors(entry);
  }

  // Which frame a mark means, in the words of the time rule.
  _frameText(mark, us) {
    return frameWords(mark, this.index.boundaryIndex(us));
  }

  _renderErrors(entry) {
    const errors = this.store.validate(entry);
    for (const [field, messages] of Object.entries(entry.serverErrors || {})) {
      errors[field] = [...new Set([...(errors[field] || []), ...messages])];
    }
    this.root.querySelectorAll("[data-error-for]").forEach((el) => {
      const messages = errors[el.dataset.errorFor] || [];
      el.textContent = messages.join(" ");
      el.hidden = messages.length === 0;
    });
    // A required label still empty is an open problem: it does not block saving.
    const missing = this.store.missing(entry);
    this.root.querySelectorAll("[data-required-for]").forEach((el) => {
      el.hidden = !missing.includes(el.dataset.requiredFor);
    });
    this.root.dataset.valid = Object.keys(errors).length ? "false" : "true";
  }
}

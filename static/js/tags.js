// Step tags in the panel: the current step's tags as chips and an input that adds one on Enter
// or comma. The rules are annotation/tags.py's (clean_tags), the one authority: its pattern and
// limit come with the page config and the messages here are its messages, so a bad tag is
// refused before anything is sent, with the words the server would use. Every tag is shown as
// text (textContent), never as markup.

const RULES = { pattern: /^$/, maxTags: 20 };

export function setTagRules({ pattern, maxTags }) {
  RULES.pattern = new RegExp(pattern);
  RULES.maxTags = maxTags;
}

// How Python's repr() quotes a text, as the server's message shows the tag.
function pyRepr(text) {
  if (text.includes("'") && !text.includes('"')) return `"${text.replaceAll("\\", "\\\\")}"`;
  return `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

// clean_tags in the browser: {tags} lower-cased, stripped, sorted and unique, or {error} naming
// the first bad tag (the server's message).
export function cleanTags(values) {
  const tags = [...new Set(values.map((t) => t.trim().toLowerCase()).filter(Boolean))].sort();
  const bad = tags.find((tag) => !RULES.pattern.test(tag));
  if (bad !== undefined) {
    return {
      error: `${pyRepr(bad)} is not a tag: use a label or key:value of lower-case letters, `
        + "digits, _ . - (at most 40 characters each).",
    };
  }
  if (tags.length > RULES.maxTags) return { error: `At most ${RULES.maxTags} tags per step.` };
  const keys = tags.filter((t) => t.includes(":")).map((t) => t.split(":", 1)[0]);
  const repeated = [...new Set(keys.filter((k, i) => keys.indexOf(k) !== i))].sort();
  if (repeated.length) return { error: `One value per key: ${repeated[0]} has several.` };
  return { tags };
}

export class TagEditor extends EventTarget {
  constructor(root, { readOnly = false }) {
    super();
    this.root = root;
    this.readOnly = readOnly;
    this.tags = [];
    this.stepId = null;
    this.chips = root.querySelector("[data-role=tag-chips]");
    this.input = root.querySelector("[data-role=tag-input]");
    this.error = root.querySelector("[data-role=tag-error]");
    this.suggestions = root.querySelector("[data-role=tag-suggestions]");
    this._suggested = "";
    if (this.readOnly || !this.input) return;
    this.input.addEventListener("keydown", (event) => this._keys(event));
    // A pasted "a, b" adds both; the text after the last comma stays to be finished.
    this.input.addEventListener("input", () => {
      this._say("");
      const parts = this.input.value.split(",");
      if (parts.length > 1) this._add(parts.slice(0, -1), parts.at(-1));
    });
    // Leaving the field keeps what was typed: it is added like Enter would (not when the focus
    // goes to a chip's remove button: that chip is what the click is about).
    this.input.addEventListener("blur", (event) => {
      if (!event.relatedTarget?.closest?.("[data-remove-tag]")) this.commitTyped();
    });
    this.chips.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-remove-tag]");
      if (button) this.remove(button.dataset.removeTag, { keyboard: event.detail === 0 });
    });
    this.chips.addEventListener("keydown", (event) => {
      const button = event.target.closest("button[data-remove-tag]");
      if (button && (event.key === "Backspace" || event.key === "Delete")) {
        event.preventDefault();
        this.remove(button.dataset.removeTag, { keyboard: true });
      }
    });
  }

  focus() {
    if (this.input) this.input.focus();
  }

  // Ctrl+S from the input: what was typed is added before the step is saved.
  commitTyped() {
    if (this.input?.value.trim()) this._add([this.input.value], "");
  }

  _keys(event) {
    if (event.isComposing) return; // Enter ends an input method's composition, nothing more
    if (event.key === "Enter" || event.key === ",") {
      event.preventDefault();
      this._add([this.input.value], "");
    } else if (event.key === "Backspace" && this.input.value === "" && this.tags.length) {
      event.preventDefault();
      this.remove(this.tags.at(-1));
    }
  }

  _say(message) {
    this.error.textContent = message;
    this.error.hidden = !message;
    if (this.input) this.input.setAttribute("aria-invalid", message ? "true" : "false");
  }

  // Add the typed tags: all of them or, if one breaks a rule, none (the text stays to fix).
  _add(texts, rest) {
    const typed = texts.filter((t) => t.trim());
    if (!typed.length) {
      this.input.value = rest;
      return;
    }
    const result = cleanTags([...this.tags, ...typed]);
    if (result.error) {
      this.input.value = [...typed, rest].join(",").replace(/,$/, "");
      this._say(result.error);
      return;
    }
    this.input.value = rest;
    this._say("");
    this._change(result.tags);
  }

  remove(tag, { keyboard = false } = {}) {
    const i = this.tags.indexOf(tag);
    if (i < 0) return;
    const tags = this.tags.filter((t) => t !== tag);
    this._change(tags);
    if (!keyboard) return;
    // From the keyboard the focus moves on to the next chip's button, or to the input.
    this._renderChips();
    const buttons = this.chips.querySelectorAll("button[data-remove-tag]");
    (buttons[Math.min(i, buttons.length - 1)] || this.input)?.focus();
  }

  _change(tags) {
    this.tags = tags;
    this._renderChips();
    this.dispatchEvent(new CustomEvent("change", { detail: { id: this.stepId, tags } }));
  }

  // The step's tags (local values) and the tags used in the video, offered as suggestions.
  render(stepId, tags, used = []) {
    if (stepId !== this.stepId) {
      // Another step is shown: what was typed for the last one is added to it first.
      if (this.stepId !== null) this.commitTyped();
      this.stepId = stepId;
      if (this.input) this.input.value = "";
      this._say("");
    }
    this.tags = [...tags];
    this._renderChips();
    if (!this.suggestions) return;
    const offered = used.filter((t) => !tags.includes(t));
    const key = offered.join("\n");
    if (key === this._suggested) return;
    this._suggested = key;
    this.suggestions.replaceChildren(...offered.map((tag) => {
      const option = document.createElement("option");
      option.value = tag;
      return option;
    }));
  }

  _renderChips() {
    const shown = [...this.chips.children].map((li) => li.dataset.tag).join("\n");
    if (shown === this.tags.join("\n") && this.chips.children.length === this.tags.length) return;
    this.chips.replaceChildren(...this.tags.map((tag) => this._chip(tag)));
  }

  _chip(tag) {
    const li = document.createElement("li");
    li.className = "tag-chip";
    li.dataset.tag = tag;
    const colon = tag.indexOf(":");
    if (colon > 0) {
      const key = document.createElement("span");
      key.className = "tag-key";
      key.textContent = tag.slice(0, colon + 1);
      li.append(key, tag.slice(colon + 1));
    } else {
      li.append(tag);
    }
    if (this.readOnly) return li;
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.removeTag = tag;
    button.textContent = "×";
    button.title = `Remove ${tag} (Backspace)`;
    button.setAttribute("aria-label", `Remove tag ${tag}`);
    li.append(button);
    return li;
  }
}

// The conflict view: someone saved the step after the version the annotator edited. It shows
// the stored value beside the annotator's for every field that differs; the annotator builds
// the merged value (theirs, stored, or both) and saves it on top of the stored version, so the
// stored text and the merged text are both in the revision history.

import { timecode } from "./frames.js";
import { EDITABLE, LABELS, TIME_FIELDS, cleaned, same } from "./steps.js";
import { cleanTags } from "./tags.js";

const LISTS = ["plausible_next_steps", "tags"];

// Tags both sides changed: by default both sets, if together they keep the rules (one value
// per key), else yours.
function bothTags(stored, mine) {
  return cleanTags([...stored, ...mine]).tags || null;
}

function show(name, value, index) {
  if (TIME_FIELDS.includes(name)) return timecode(name, value, index);
  if (Array.isArray(value)) return value.join("\n");
  return value;
}

export class ConflictView extends EventTarget {
  constructor(root, { store, index }) {
    super();
    this.root = root;
    this.store = store;
    this.index = index;
    this.id = null;
    this.rows = root.querySelector("[data-role=rows]");
    this.note = root.querySelector("[data-role=note]");
    root.querySelector("[data-action=save-merged]").addEventListener("click", () => this._save());
    root.querySelector("[data-action=take-stored]").addEventListener("click", () => this._takeStored());
  }

  get open() {
    return !this.root.hidden;
  }

  openFor(id) {
    const entry = this.store.get(id);
    if (!entry || !entry.conflict) return;
    this.id = id;
    const stored = entry.conflict;
    const mine = entry.local;
    const before = entry.server; // what the edits were made on
    // A restored draft may be based on an older version than the one loaded, whose values the
    // page no longer has: then every field the draft changes is shown.
    const baseUnknown = entry.base < before.version;
    const edited = (name) => !same(cleaned(name, mine[name]), before[name]);
    // Only a field both sides changed needs a decision; a field only they changed follows the
    // stored step, one only you changed keeps your value (resolveConflict applies both rules).
    const fields = EDITABLE.filter((name) => edited(name)
      && !same(cleaned(name, mine[name]), stored[name])
      && (baseUnknown || !same(stored[name], before[name])));
    const theirs = EDITABLE.filter((name) => !edited(name) && !same(stored[name], before[name]));
    const parts = [`Version ${stored.version} was saved while you edited version ${entry.base}.`];
    if (fields.length) parts.push("Choose what to keep where you both changed something; both versions stay in the history.");
    else parts.push("You did not change the same fields: saving puts your edits on top of it.");
    if (theirs.length) parts.push(`Taken from the stored version: ${theirs.map((n) => LABELS[n]).join(", ")}.`);
    this.note.textContent = parts.join(" ");
    this.rows.replaceChildren(...fields.map((name) => this._row(name, stored[name], mine[name])));
    this.root.hidden = false;
    const first = this.rows.querySelector("textarea, input");
    (first || this.root.querySelector("[data-action=save-merged]")).focus();
  }

  close() {
    this.root.hidden = true;
    this.id = null;
  }

  _row(name, stored, mine) {
    const row = document.createElement("div");
    row.className = "conflict-row";
    row.dataset.field = name;
    const title = document.createElement("h3");
    title.textContent = LABELS[name];
    const storedBox = document.createElement("div");
    storedBox.className = "conflict-stored";
    storedBox.dataset.role = "stored";
    storedBox.textContent = show(name, stored, this.index);
    const mineBox = document.createElement("div");
    mineBox.className = "conflict-mine";
    mineBox.dataset.role = "mine";
    mineBox.textContent = show(name, mine, this.index);
    const merged = document.createElement("div");
    merged.className = "conflict-merged";
    if (TIME_FIELDS.includes(name)) {
      for (const [which, value] of [["mine", mine], ["stored", stored]]) {
        const label = document.createElement("label");
        const radio = document.createElement("input");
        radio.type = "radio";
        radio.name = `merge-${name}`;
        radio.value = String(value);
        radio.checked = which === "mine";
        label.append(radio, ` ${which === "mine" ? "Mine" : "Stored"}`);
        merged.append(label);
      }
    } else {
      const area = document.createElement("textarea");
      area.dataset.role = "merged";
      area.rows = 3;
      const isList = LISTS.includes(name);
      let both = isList ? null : [stored, mine].filter((t) => t.trim()).join(" / ");
      if (name === "tags") {
        const union = bothTags(stored, mine);
        both = union ? union.join("\n") : null;
        area.value = union ? both : mine.join("\n");
      } else {
        area.value = isList ? [...new Set([...stored, ...cleaned(name, mine)])].join("\n") : mine;
      }
      merged.append(area);
      const buttons = document.createElement("div");
      for (const [text, value] of [["Use stored", isList ? stored.join("\n") : stored],
        ["Use mine", isList ? mine.join("\n") : mine], ["Keep both", both]]) {
        if (value === null) continue;
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = text;
        button.dataset.choice = text.toLowerCase().replace(" ", "-");
        button.addEventListener("click", () => {
          area.value = value;
          area.focus();
        });
        buttons.append(button);
      }
      merged.append(buttons);
      if (name === "tags") {
        const error = document.createElement("span");
        error.className = "field-error";
        error.dataset.role = "merge-error";
        error.hidden = true;
        merged.append(error);
      }
    }
    const stTitle = document.createElement("span");
    stTitle.className = "conflict-caption";
    stTitle.textContent = "Stored";
    const mineTitle = document.createElement("span");
    mineTitle.className = "conflict-caption";
    mineTitle.textContent = "Yours";
    const grid = document.createElement("div");
    grid.className = "conflict-grid";
    const left = document.createElement("div");
    left.append(stTitle, storedBox);
    const right = document.createElement("div");
    right.append(mineTitle, mineBox);
    grid.append(left, right);
    row.append(title, grid, merged);
    return row;
  }

  _merged() {
    const values = {};
    for (const row of this.rows.children) {
      const name = row.dataset.field;
      if (TIME_FIELDS.includes(name)) {
        values[name] = Number(row.querySelector("input[type=radio]:checked").value);
      } else if (name === "plausible_next_steps") {
        values[name] = row.querySelector("textarea").value.split("\n").map((s) => s.trim()).filter(Boolean);
      } else if (name === "tags") {
        // One tag a line (or comma-separated), kept to the rules of the tag input.
        const result = cleanTags(row.querySelector("textarea").value.split(/[\n,]/));
        const error = row.querySelector("[data-role=merge-error]");
        error.textContent = result.error || "";
        error.hidden = !result.error;
        if (result.error) return null;
        values[name] = result.tags;
      } else {
        values[name] = row.querySelector("textarea").value;
      }
    }
    return values;
  }

  _save() {
    if (this.id === null) return;
    const id = this.id;
    const merged = this._merged();
    if (merged === null) return; // a merged tag breaks a rule: its message shows in the row
    this.store.resolveConflict(id, merged);
    this.close();
    this.dispatchEvent(new CustomEvent("resolved", { detail: { id } }));
  }

  _takeStored() {
    if (this.id === null) return;
    const id = this.id;
    this.store.resolveConflict(id, {}, { discardMine: true });
    this.close();
    this.dispatchEvent(new CustomEvent("resolved", { detail: { id } }));
  }
}

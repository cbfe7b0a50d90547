// The steps of one video as the page holds them: the last copy the server acknowledged and the
// annotator's local values on top. The server is the authority on validity
// (annotation.services.validate_times); ``validate`` mirrors its rules so problems show while
// typing, with the same messages.

export const TIME_FIELDS = ["start_us", "cutoff_us", "outcome_us", "end_us"];
export const TEXT_FIELDS = ["local_intent", "procedural_intent", "next_step"];
export const EDITABLE = [...TIME_FIELDS, ...TEXT_FIELDS, "plausible_next_steps", "tags"];
// Field names as the pages show them; filled from the server's one list
// (annotation.models.FIELD_NAMES, in the page config) before anything is drawn.
export const LABELS = {};

export function nameFields(names) {
  Object.assign(LABELS, names);
}

export function same(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length
      && a.every((x, i) => x === b[i]);
  }
  return a === b;
}

function editableOf(payload) {
  const values = {};
  for (const name of EDITABLE) {
    values[name] = Array.isArray(payload[name]) ? [...payload[name]] : payload[name];
  }
  return values;
}

// What the server stores for a label (it trims texts and drops empty plausible items).
export function cleaned(name, value) {
  if (name === "plausible_next_steps") return value.map((s) => s.trim()).filter(Boolean);
  if (TEXT_FIELDS.includes(name)) return value.trim();
  return value;
}

export class StepStore extends EventTarget {
  constructor(video, maxStepUs) {
    super();
    this.video = video;
    this.maxStepUs = maxStepUs;
    this.steps = new Map(); // id -> entry
  }

  load(payloads) {
    this.steps.clear();
    for (const payload of payloads) this.steps.set(payload.id, this._entry(payload));
    this._changed();
  }

  _entry(payload) {
    return {
      id: payload.id,
      uid: payload.uid,
      server: payload,
      base: payload.version, // the version local edits are based on
      local: editableOf(payload),
      serverErrors: {},
      refused: {}, // field -> the value a 400 refused; not sent again until it is edited
      conflict: null,
    };
  }

  _changed(id = null) {
    this._active = null;
    this._tags = null;
    this.dispatchEvent(new CustomEvent("change", { detail: { id } }));
  }

  get(id) {
    return this.steps.get(id);
  }

  byUid(uid) {
    for (const entry of this.steps.values()) if (entry.uid === uid) return entry;
    return null;
  }

  // Active steps ordered by (local) start time.
  // Sorted once per change (every mutation goes through _changed): the timeline validates every
  // step on each render, and a video has hundreds.
  active() {
    if (!this._active) {
      this._active = [...this.steps.values()]
        .filter((e) => e.server.status === "active")
        .sort((a, b) => a.local.start_us - b.local.start_us || a.id - b.id);
    }
    return this._active;
  }

  // Every tag a step of this video carries (saved or being edited), sorted: the suggestions of
  // the tag input.
  tagsInUse() {
    if (!this._tags) {
      const used = new Set();
      for (const entry of this.steps.values()) {
        for (const tag of [...(entry.server.tags || []), ...(entry.local.tags || [])]) used.add(tag);
      }
      this._tags = [...used].sort();
    }
    return this._tags;
  }

  retracted() {
    return [...this.steps.values()].filter((e) => e.server.status !== "active");
  }

  at(tUs) {
    return this.active().find((e) => e.local.start_us <= tUs && tUs < e.local.end_us) || null;
  }

  dirtyFields(entry) {
    return EDITABLE.filter((name) => !same(cleaned(name, entry.local[name]), entry.server[name]));
  }

  isDirty(entry) {
    return entry.base !== entry.server.version || this.dirtyFields(entry).length > 0;
  }

  edit(id, changes) {
    const entry = this.steps.get(id);
    if (!entry) return;
    Object.assign(entry.local, changes);
    for (const name of Object.keys(changes)) {
      delete entry.serverErrors[name];
      delete entry.refused[name];
    }
    this._changed(id);
  }

  // The server acknowledged a save (or another action): it is the new base. Local edits made
  // while the request was in flight stay on top of it.
  acknowledge(payload, sentValues = null) {
    const entry = this.steps.get(payload.id);
    if (!entry) {
      this.steps.set(payload.id, this._entry(payload));
      this._changed(payload.id);
      return;
    }
    const previous = entry.server;
    entry.server = payload;
    entry.base = payload.version;
    entry.conflict = null;
    this._keepRefused(entry);
    for (const name of EDITABLE) {
      // A field the annotator did not touch since the request left follows the server.
      const untouched = sentValues && name in sentValues
        ? same(entry.local[name], sentValues[name])
        : same(cleaned(name, entry.local[name]), previous[name]);
      if (untouched) {
        entry.local[name] = Array.isArray(payload[name]) ? [...payload[name]] : payload[name];
      }
    }
    this._changed(payload.id);
  }

  // The server refused a save (400): its messages show next to the fields, and the values it
  // refused are not sent again until edited (the other fields of the step still are). A refusal
  // that names none of the fields sent refuses them all.
  setErrors(id, errors, sent = {}) {
    const entry = this.steps.get(id);
    if (!entry) return;
    entry.serverErrors = errors || {};
    const named = Object.keys(sent).filter((name) => name in entry.serverErrors);
    entry.refused = {};
    for (const name of named.length ? named : Object.keys(sent)) {
      if (EDITABLE.includes(name)) entry.refused[name] = sent[name];
    }
    this._changed(id);
  }

  // A field still holding the value the server refused keeps its message.
  _keepRefused(entry) {
    const refused = {};
    const errors = {};
    for (const [name, value] of Object.entries(entry.refused)) {
      if (!same(entry.local[name], value)) continue;
      refused[name] = value;
      if (entry.serverErrors[name]) errors[name] = entry.serverErrors[name];
    }
    entry.refused = refused;
    entry.serverErrors = errors;
  }

  isRefused(entry, name) {
    return name in entry.refused && same(entry.local[name], entry.refused[name]);
  }

  setConflict(id, stored) {
    const entry = this.steps.get(id);
    if (!entry) return;
    entry.conflict = stored;
    this._changed(id);
  }

  // The annotator merged their values with the stored step: the stored step becomes the base
  // and the merged values are the local edits, saved on top of it.
  // Fields outside ``merged`` keep the annotator's own edits (made before or while the conflict
  // view was open) unless ``discardMine``; everything else follows the stored step.
  resolveConflict(id, merged, { discardMine = false } = {}) {
    const entry = this.steps.get(id);
    if (!entry || !entry.conflict) return;
    const before = entry.server;
    const stored = editableOf(entry.conflict);
    const local = { ...stored };
    if (!discardMine) {
      for (const name of EDITABLE) {
        if (!same(cleaned(name, entry.local[name]), before[name])) local[name] = entry.local[name];
      }
    }
    entry.server = entry.conflict;
    entry.base = entry.conflict.version;
    entry.conflict = null;
    entry.local = { ...local, ...merged };
    this._keepRefused(entry);
    this._changed(id);
  }

  // Rules of annotation.services.validate_times plus the required labels, for one entry.
  validate(entry) {
    const v = entry.local;
    const errors = {};
    const add = (field, message) => (errors[field] ||= []).push(message);
    for (const name of TIME_FIELDS) {
      if (!Number.isInteger(v[name])) add(name, "Must be an integer number of microseconds.");
    }
    if (Object.keys(errors).length) return errors;
    if (v.start_us < 0) add("start_us", "Cannot be before the start of the video.");
    if (v.end_us > this.video.duration_us) {
      add("end_us", `Cannot be after the end of the video (${this.video.duration_us} µs).`);
    }
    if (!(v.start_us < v.cutoff_us)) add("cutoff_us", "The cutoff must come after the start.");
    if (!(v.cutoff_us <= v.outcome_us)) add("outcome_us", "The outcome cannot come before the cutoff.");
    if (!(v.outcome_us <= v.end_us)) add("end_us", "The end cannot come before the outcome.");
    if (v.end_us - v.start_us > this.maxStepUs) add("end_us", "A micro-step lasts at most 10 seconds.");
    const steps = this.active();
    const clash = steps.find(
      (e) => e.id !== entry.id && e.local.start_us < v.end_us && e.local.end_us > v.start_us,
    );
    if (clash) {
      const n = steps.indexOf(clash) + 1;
      add("start_us", `Overlaps step ${n} [${clash.local.start_us}, ${clash.local.end_us}) of this video.`);
    }
    return errors;
  }

  // Labels still to write: they do not block saving.
  missing(entry) {
    return TEXT_FIELDS.filter((name) => !String(entry.local[name] || "").trim());
  }
}

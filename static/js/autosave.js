// Debounced autosave through the REST API, with a visible state.
//
// Rules (docs/annotation.md): a save carries the version its edits are based on; one request
// per step is in flight at a time; a request whose answer never arrived is sent again unchanged
// (the server acknowledges a repeat without a second revision); a stale save (409) stops saving
// that step and opens the conflict view; invalid values are kept locally and not sent.

import { ApiError, NetworkError, api, withId } from "./api.js";
import { EDITABLE } from "./steps.js";

const DELAY_MS = 700;
const RETRY_MS = [1000, 2000, 4000, 8000];

function newUid() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function copy(value) {
  return Array.isArray(value) ? [...value] : value;
}

export class Saver extends EventTarget {
  constructor({ store, urls, drafts, delay = DELAY_MS }) {
    super();
    this.store = store;
    this.urls = urls;
    this.drafts = drafts;
    this.delay = delay;
    this.timers = new Map();
    this.inflight = new Map(); // id -> promise
    this.resend = new Map(); // id -> body whose answer never came
    this.creating = new Map(); // uid -> body
    this.offline = false;
    this.error = "";
    this._retry = null;
    this._attempt = 0;
    window.addEventListener("online", () => this.reconnect());
  }

  // --- state -------------------------------------------------------------------------------

  state() {
    const entries = [...this.store.steps.values()];
    if (entries.some((e) => e.conflict)) return "conflict";
    if (this.offline) return "offline";
    if (this.inflight.size || this.creating.size) return "saving";
    if (this.error) return "error";
    if (entries.some((e) => this.store.isDirty(e)) || this.resend.size) return "unsaved";
    return "saved";
  }

  _emit() {
    this.dispatchEvent(new CustomEvent("state", { detail: { state: this.state() } }));
  }

  // --- edits -------------------------------------------------------------------------------

  // The annotator changed a step: keep a draft now, save after a pause in typing.
  changed(id) {
    const entry = this.store.get(id);
    if (!entry) return;
    this._keepDraft(entry);
    this.schedule(id);
    this._emit();
  }

  _keepDraft(entry) {
    const values = {};
    for (const name of this.store.dirtyFields(entry)) values[name] = copy(entry.local[name]);
    const inflight = this.resend.get(entry.id) || null;
    if (Object.keys(values).length || inflight || entry.base !== entry.server.version) {
      this.drafts.save(entry, values, inflight);
    } else {
      this.drafts.clear(entry.uid);
    }
  }

  schedule(id, delay = this.delay) {
    clearTimeout(this.timers.get(id));
    this.timers.set(id, setTimeout(() => this.flush(id), delay));
  }

  async flushAll() {
    for (const id of this.timers.keys()) clearTimeout(this.timers.get(id));
    for (const body of this.creating.values()) await this._sendCreate(body);
    const ids = [...this.store.steps.values()]
      .filter((e) => this.resend.has(e.id) || this.store.isDirty(e))
      .map((e) => e.id);
    await Promise.all(ids.map((id) => this.flush(id)));
  }

  // Save one step now. Resolves when the step has no request in flight.
  async flush(id) {
    clearTimeout(this.timers.get(id));
    if (this.inflight.has(id)) {
      await this.inflight.get(id);
      return this.flush(id);
    }
    const entry = this.store.get(id);
    if (!entry || entry.conflict || entry.server.status !== "active") return;
    let body = this.resend.get(id);
    if (!body) {
      const dirty = this.store.dirtyFields(entry);
      if (!dirty.length) {
        entry.base = entry.server.version;
        this.drafts.clear(entry.uid);
        this._emit();
        return;
      }
      if (Object.keys(this.store.validate(entry)).length) {
        this._emit(); // kept as a draft; the panel shows what to fix
        return;
      }
      // A value the server refused (400) waits for an edit; the other fields go on.
      const sendable = dirty.filter((name) => !this.store.isRefused(entry, name));
      if (!sendable.length) {
        this._emit();
        return;
      }
      body = { version: entry.base };
      for (const name of sendable) body[name] = copy(entry.local[name]);
    }
    const done = this._send(entry, body);
    this.inflight.set(id, done);
    this._emit();
    try {
      await done;
    } finally {
      this.inflight.delete(id);
      this._emit();
    }
    const after = this.store.get(id);
    if (after && !after.conflict && !this.offline && !this.error && this.store.isDirty(after)) {
      this.schedule(id, 50);
    }
  }

  async _send(entry, body) {
    // Remember the request before it leaves: if the page dies now, a reload sends it again.
    this.resend.set(entry.id, body);
    this._keepDraft(entry);
    try {
      const answer = await api.patch(withId(this.urls.step, entry.id), body);
      this.resend.delete(entry.id);
      this._online();
      this.store.acknowledge(answer.steps[0], body);
    } catch (error) {
      if (this._transient(error)) {
        this._offline();
        return; // resend keeps the body
      }
      this.resend.delete(entry.id);
      if (error instanceof ApiError && error.status === 409) {
        this.store.setConflict(entry.id, error.body.stored);
      } else if (error instanceof ApiError && error.status === 400) {
        this.store.setErrors(entry.id, error.body.errors || {}, body);
      } else {
        this.error = error.message;
      }
    } finally {
      const now = this.store.get(entry.id);
      if (now) this._keepDraft(now);
    }
  }

  _transient(error) {
    if (error instanceof NetworkError) return true;
    // 502/503/504 come from a proxy or a restarting server: the same request is safe to repeat.
    return error instanceof ApiError && [0, 502, 503, 504].includes(error.status);
  }

  // --- creating ------------------------------------------------------------------------------

  // Create a step under a client-chosen uid, so a repeat after a lost answer is harmless.
  async create(values) {
    const body = { uid: newUid(), ...values };
    this.drafts.saveCreate(body);
    this.creating.set(body.uid, body);
    return this._sendCreate(body);
  }

  async _sendCreate(body) {
    this._emit();
    try {
      const answer = await api.post(this.urls.createStep, body);
      this.creating.delete(body.uid);
      this.drafts.clearCreate(body.uid);
      this._online();
      for (const payload of answer.steps) this.store.acknowledge(payload);
      return answer.steps[0];
    } catch (error) {
      if (this._transient(error)) {
        this._offline();
        return null;
      }
      this.creating.delete(body.uid);
      this.drafts.clearCreate(body.uid);
      throw error;
    } finally {
      this._emit();
    }
  }

  // --- split, merge, retract, restore -----------------------------------------------------

  // Structural actions need the server's answer: they are not queued offline.
  async action(kind, id, extra = {}) {
    await this.flush(id);
    const entry = this.store.get(id);
    if (!entry) throw new Error("No such step.");
    if (entry.conflict) throw new Error("Resolve the conflict on this step first.");
    if (this.store.isDirty(entry)) throw new Error("This step has unsaved changes; fix them first.");
    const url = withId(this.urls[kind], id);
    try {
      const answer = await api.post(url, { version: entry.server.version, ...extra });
      this._online();
      for (const payload of answer.steps) this.store.acknowledge(payload);
      return answer.steps;
    } catch (error) {
      if (this._transient(error)) {
        this._offline();
        throw new Error("The server cannot be reached; try again when it is back.");
      }
      if (error instanceof ApiError && error.status === 409 && error.body.stored) {
        const stored = this.store.get(error.body.stored.id);
        if (stored && !this.store.isDirty(stored)) this.store.acknowledge(error.body.stored);
      }
      throw error;
    }
  }

  // --- connection ----------------------------------------------------------------------------

  _offline() {
    this.offline = true;
    this._emit();
    if (this._retry) return;
    const delay = RETRY_MS[Math.min(this._attempt, RETRY_MS.length - 1)];
    this._attempt += 1;
    this._retry = setTimeout(() => {
      this._retry = null;
      this.reconnect();
    }, delay);
  }

  _online() {
    if (this.offline) {
      this.offline = false;
      this._attempt = 0;
      this._emit();
    }
  }

  async reconnect() {
    try {
      await api.get(this.urls.ping);
    } catch (error) {
      if (this._transient(error)) {
        this._offline();
        return;
      }
    }
    this._online();
    await this.flushAll();
  }

  // --- after a reload ------------------------------------------------------------------------

  // Put drafts left by an earlier page back on top of the server's steps and send them.
  restore() {
    for (const body of this.drafts.creates()) {
      this.creating.set(body.uid, body);
      if (this.store.byUid(body.uid)) {
        this.creating.delete(body.uid);
        this.drafts.clearCreate(body.uid);
      }
    }
    let restored = 0;
    for (const draft of this.drafts.all()) {
      const entry = this.store.byUid(draft.uid);
      if (!entry) continue;
      const values = {};
      for (const name of EDITABLE) if (name in draft.values) values[name] = copy(draft.values[name]);
      Object.assign(entry.local, values);
      entry.base = draft.base;
      if (draft.inflight) this.resend.set(entry.id, draft.inflight);
      restored += 1;
    }
    this.store._changed();
    this._emit();
    if (restored || this.creating.size) this.flushAll();
    return restored;
  }
}

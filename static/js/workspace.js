// The annotation workspace page: loads the video, its frame-time index and its steps through
// the API, then wires the player, timeline, step panel, autosave, conflict view, history and
// keys together. All state changes go through the StepStore; all writes through the Saver.

import { api } from "./api.js";
import { Saver } from "./autosave.js";
import { ConflictView } from "./conflict.js";
import { Drafts } from "./drafts.js";
import { FrameIndex, clock, fetchFrameTimes } from "./frames.js";
import { HistoryPanel } from "./history.js";
import { BINDINGS, listenForShortcuts, releaseFocusAfterClick, renderHelp } from "./keys.js";
import { StepPanel } from "./panel.js";
import { Player } from "./player.js";
import { Preview } from "./preview.js";
import { StepStore, nameFields } from "./steps.js";
import { setTagRules } from "./tags.js";
import { Timeline } from "./timeline.js";

const MARK_KEYS = ["start_us", "cutoff_us", "outcome_us", "end_us"];
const DEFAULT_STEP_US = 2_000_000;
const MESSAGE_MS = 5000;
const ERROR_MESSAGE_MS = 10_000;
const STATE_TEXT = {
  saved: "All changes saved",
  saving: "Saving…",
  unsaved: "Unsaved changes",
  offline: "Offline: edits are kept on this device and sent when the server is back",
  conflict: "Conflict: someone else saved this step; choose what to keep",
  error: "Not saved",
};

// What a user who may only read (an adjudicator) cannot do; the server refuses it too (403).
const EDIT_ACTIONS = new Set([
  "set-start", "set-cutoff", "set-outcome", "set-end", "nudge", "nudge-earlier", "nudge-later",
  "create", "split", "merge", "retract", "restore-last", "save", "preview", "tags",
]);

const KEYMAP = new Map();
for (const [, rows] of BINDINGS) {
  for (const [keys, , action] of rows) keys.forEach((key, i) => KEYMAP.set(key, [action, i]));
}

class Workspace {
  constructor(root, config) {
    this.root = root;
    this.config = config;
    this.urls = config.urls;
    this.current = null;
    this.loop = false;
    this.readOnly = Boolean(config.readOnly);
    this.$ = (role) => root.querySelector(`[data-role=${role}]`);
  }

  // A status line that clears itself: after a few seconds (errors stay a little longer) or when
  // the next action starts.
  say(text, kind = "info") {
    const line = this.$("message");
    line.textContent = text;
    line.dataset.kind = kind;
    clearTimeout(this._sayTimer);
    if (text) this._sayTimer = setTimeout(() => this.say(""), kind === "error" ? ERROR_MESSAGE_MS : MESSAGE_MS);
  }

  async load() {
    const [workspace, frameTimes] = await Promise.all([
      api.get(this.urls.workspace),
      fetchFrameTimes(this.urls.frameTimes),
    ]);
    this.video = workspace.video;
    this.index = new FrameIndex(frameTimes, this.video.duration_us, this.video.origin_us || 0);
    this.store = new StepStore(this.video, workspace.max_step_us);
    this.store.load(workspace.steps);
    this.drafts = new Drafts(this.config.videoId);
    this.saver = new Saver({ store: this.store, urls: this.urls, drafts: this.drafts });

    const element = this.$("video");
    this.player = new Player(element, this.index);
    if (this.video.has_file) element.src = this.urls.source;
    else this.say("This video has no file on the server; the marks can still be edited.", "error");

    const readOnly = this.readOnly;
    this.timeline = new Timeline(this.$("timeline"), { index: this.index, store: this.store, readOnly });
    this.panel = new StepPanel(this.$("panel"), { store: this.store, index: this.index, readOnly });
    this.conflict = new ConflictView(this.$("conflict"), { store: this.store, index: this.index });
    this.history = new HistoryPanel(this.$("history"), { urls: this.urls });
    this.preview = this.$("preview") ? new Preview(this.$("preview"), { urls: this.urls }) : null;
    renderHelp(this.$("help"));
    this._wire();

    const first = this.store.active()[0];
    this.select(first ? first.id : null, { seek: false });
    const restored = this.readOnly ? 0 : this.saver.restore();
    if (restored) this.say(`Restored ${restored} unsaved draft(s) from this device; sending them now.`);
    this._renderState();
    if (this.video.has_file) {
      await new Promise((resolve) => {
        if (element.readyState >= 1) resolve();
        else element.addEventListener("loadedmetadata", resolve, { once: true });
        element.addEventListener("error", resolve, { once: true });
      });
      this.index.origin = await this.player.calibrate(this.video.origin_us || 0);
      this.root.dataset.origin = String(this.index.origin);
      await this.player.seekFrame(first ? this.index.boundaryIndex(first.local.start_us) : 0);
    }
    this.root.dataset.ready = "true";
  }

  _wire() {
    this.store.addEventListener("change", () => this._storeChanged());
    this.saver.addEventListener("state", () => this._renderState());
    this.player.addEventListener("frame", () => this._frameChanged());
    this.timeline.addEventListener("seek", (e) => {
      const frame = this.index.frameAt(e.detail.us);
      if (e.detail.id !== null) this.select(e.detail.id, { seek: false });
      this.player.seekFrame(frame);
    });
    this.timeline.addEventListener("select", (e) => {
      this.select(e.detail.id, { seek: false });
      this.chooseMark(e.detail.mark);
    });
    this.timeline.addEventListener("mark", (e) => this.setMark(e.detail.id, e.detail.mark, e.detail.us));
    this.panel.addEventListener("edit", (e) => {
      this.store.edit(e.detail.id, e.detail.changes);
      this.saver.changed(e.detail.id);
    });
    this.panel.addEventListener("nudge", (e) => {
      this.chooseMark(e.detail.mark);
      this.nudge(e.detail.delta);
    });
    this.panel.addEventListener("select-mark", (e) => this.chooseMark(e.detail.mark));
    this.conflict.addEventListener("resolved", (e) => {
      this.saver.changed(e.detail.id);
      this.saver.flush(e.detail.id);
      this.say("Merged: saving your merged version on top of the stored one.");
    });
    this.root.querySelectorAll("[data-do]").forEach((button) => {
      button.addEventListener("click", () => this.run(button.dataset.do, Number(button.dataset.i || 0)));
    });
    this.$("speed").addEventListener("change", (e) => this.player.setRate(Number(e.target.value)));
    this.$("retracted").addEventListener("click", (e) => {
      const button = e.target.closest("button[data-restore]");
      if (button) this.restore(Number(button.dataset.restore));
    });
    listenForShortcuts((name, e) => this._key(name, e), { anywhere: ["Ctrl+s", "Escape"] });
    releaseFocusAfterClick(this.root);
    window.addEventListener("resize", () => this.timeline.render());
    this.chooseMark("start_us");
  }

  // Store changes come with every keystroke; the DOM is redrawn once per animation frame.
  _storeChanged() {
    if (this._redraw) return;
    this._redraw = requestAnimationFrame(() => {
      this._redraw = null;
      this._redrawNow();
    });
  }

  _redrawNow() {
    if (this.current !== null) {
      const entry = this.store.get(this.current);
      if (!entry || entry.server.status !== "active") this.current = null;
    }
    this.timeline.render();
    this.timeline.setCurrent(this.current);
    this.panel.show(this.current);
    this._followPreview();
    this._renderRetracted();
    this._renderState();
    const conflicted = [...this.store.steps.values()].find((e) => e.conflict);
    if (conflicted && !this.conflict.open) {
      this.select(conflicted.id, { seek: false });
      this.conflict.openFor(conflicted.id);
    }
  }

  _renderState() {
    if (!this.saver) return;
    if (this.readOnly) {
      this.$("save-state").dataset.state = "readonly";
      this.$("save-state").textContent = "Read-only";
      return;
    }
    const state = this.saver.state();
    const badge = this.$("save-state");
    badge.dataset.state = state;
    badge.textContent = state === "error" ? `${STATE_TEXT.error}: ${this.saver.error}` : STATE_TEXT[state];
  }

  _renderRetracted() {
    const items = this.store.retracted().map((entry) => {
      const li = document.createElement("li");
      li.dataset.id = String(entry.id);
      const text = document.createElement("span");
      text.textContent = `${clock(entry.server.start_us)}–${clock(entry.server.end_us)} ${entry.server.local_intent || "(no label)"}`;
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.restore = String(entry.id);
      button.textContent = "Restore";
      if (this.readOnly) li.append(text);
      else li.append(text, " ", button);
      return li;
    });
    this.$("retracted").replaceChildren(...items);
    this.$("retracted-box").hidden = items.length === 0;
  }

  _frameChanged() {
    const frame = this.player.frame;
    const t = this.index.timeOf(frame);
    this.$("frame").textContent = `#${frame}`;
    this.$("time").textContent = clock(t);
    this.$("speed").value = String(this.player.rate);
    this.$("play-state").textContent = this.player.playing ? "playing" : "paused";
    this.root.dataset.frame = String(frame);
    this.timeline.setPlayhead(t);
    const under = this.store.at(t);
    if (under && under.id !== this.current) this.select(under.id, { seek: false });
  }

  select(id, { seek = true } = {}) {
    this.current = id;
    this.timeline.setCurrent(id);
    this.panel.show(id);
    this._followPreview();
    this.root.dataset.current = id === null ? "" : String(id);
    if (seek && id !== null) {
      const entry = this.store.get(id);
      this.player.seekFrame(this.index.boundaryIndex(entry.local.start_us));
    }
  }

  // The preview sits under the player and belongs to the step in the panel.
  _followPreview() {
    if (!this.preview) return;
    this.$("preview").hidden = !this.panel.visible;
    this.preview.follow(this.entry());
  }

  async showPreview() {
    const entry = this.entry();
    if (!entry) return this.say("No step selected.", "error");
    await this.saver.flush(entry.id);
    if (this.store.isDirty(entry) || entry.conflict) {
      return this.say("The preview shows saved times: save the step first.", "error");
    }
    return this.preview.request(entry);
  }

  chooseMark(mark) {
    this.mark = mark;
    this.timeline.setSelectedMark(mark);
    this.root.querySelectorAll("[data-mark]").forEach((row) => {
      row.classList.toggle("chosen", row.dataset.mark === mark);
    });
  }

  entry() {
    return this.current === null ? null : this.store.get(this.current);
  }

  setMark(id, mark, us) {
    if (this.readOnly) return;
    this.store.edit(id, { [mark]: us });
    this.saver.changed(id);
  }

  // Marks from the frame on screen, in the words of the time rule: start and outcome are the
  // time of this frame; cutoff and end are the boundary after it (this frame is the last one in).
  markHere(mark) {
    const entry = this.entry();
    if (!entry) return this.say("No step here: press n to create one.", "error");
    const frame = this.player.frame;
    const us = mark === "cutoff_us" || mark === "end_us" ? this.index.after(frame) : this.index.timeOf(frame);
    this.chooseMark(mark);
    this.setMark(entry.id, mark, us);
  }

  nudge(delta) {
    const entry = this.entry();
    if (!entry) return;
    const k = this.index.boundaryIndex(entry.local[this.mark]) + delta;
    if (k < 0 || k > this.index.count) return;
    this.setMark(entry.id, this.mark, this.index.boundary(k));
  }

  gotoMark() {
    const entry = this.entry();
    if (!entry) return;
    const k = this.index.boundaryIndex(entry.local[this.mark]);
    const after = this.mark === "cutoff_us" || this.mark === "end_us";
    this.player.seekFrame(after ? k - 1 : k);
  }

  async create() {
    const frame = this.player.frame;
    const start = this.index.timeOf(frame);
    const inside = this.store.at(start);
    if (inside) {
      this.select(inside.id, { seek: false });
      return this.say("This frame is inside a step already: move past its end first.", "error");
    }
    const next = this.store.active().find((e) => e.local.start_us > start);
    let limit = Math.min(start + DEFAULT_STEP_US, this.video.duration_us);
    if (next) limit = Math.min(limit, next.local.start_us);
    // The last boundary not after the limit, and at least one frame long.
    let end = limit >= this.video.duration_us ? this.video.duration_us : this.index.timeOf(this.index.frameAt(limit));
    if (end <= start) end = this.index.after(frame);
    try {
      const step = await this.saver.create({ start_us: start, cutoff_us: end, outcome_us: end, end_us: end });
      if (step) {
        this.select(step.id, { seek: false });
        this.say("Step created: set its cutoff (c), outcome (o) and end (e), then its labels (Enter).");
      } else {
        this.say("Offline: the new step will be created when the server is back.", "error");
      }
    } catch (error) {
      this.say(error.message, "error");
    }
  }

  async structural(kind, extra = {}, success = "") {
    const entry = this.entry();
    if (!entry) return this.say("No step selected.", "error");
    try {
      const steps = await this.saver.action(kind, entry.id, extra);
      if (kind === "retract") {
        const next = this.store.active().find((e) => e.local.start_us >= entry.local.end_us);
        this.select(next ? next.id : null, { seek: false });
      } else {
        // After a split the playhead sits on the new second part's first frame: select it.
        this.select(steps[kind === "split" ? 1 : 0].id, { seek: false });
      }
      this.say(success);
    } catch (error) {
      this.say(error.message, "error");
    }
  }

  split() {
    const entry = this.entry();
    if (!entry) return this.say("No step selected.", "error");
    const at = this.index.timeOf(this.player.frame);
    if (!(entry.local.start_us < at && at < entry.local.end_us)) {
      return this.say("Split inside the step: show a frame after its first one.", "error");
    }
    return this.structural("split", { at_us: at }, "Split: the second part is a new step.");
  }

  merge() {
    const entry = this.entry();
    if (!entry) return this.say("No step selected.", "error");
    const next = this.store.active().find((e) => e.local.start_us >= entry.local.end_us);
    if (!next) return this.say("This is the last step: nothing follows to merge.", "error");
    return this.structural("merge", { next_version: next.server.version },
      "Merged: the following step was retracted; its texts are kept.");
  }

  async restore(id) {
    try {
      await this.saver.action("restore", id);
      this.select(id);
      this.say("Restored.");
    } catch (error) {
      this.say(error.message, "error");
    }
  }

  restoreLast() {
    const last = this.store.retracted()
      .sort((a, b) => b.server.updated_at.localeCompare(a.server.updated_at))[0];
    if (!last) return this.say("No retracted step to restore.", "error");
    return this.restore(last.id);
  }

  neighbour(direction) {
    const steps = this.store.active();
    if (!steps.length) return;
    const i = steps.findIndex((e) => e.id === this.current);
    let j;
    if (i < 0) {
      const t = this.index.timeOf(this.player.frame);
      j = direction > 0 ? steps.findIndex((e) => e.local.start_us > t) : steps.findLastIndex((e) => e.local.end_us <= t);
    } else {
      j = i + direction;
    }
    if (j >= 0 && j < steps.length) this.select(steps[j].id);
  }

  playToCutoff() {
    const entry = this.entry();
    if (!entry) return;
    this.player.playRange(this.index.boundaryIndex(entry.local.start_us), this.index.boundaryIndex(entry.local.cutoff_us));
  }

  toggleLoop() {
    const entry = this.entry();
    this.loop = !this.loop;
    this.$("loop").setAttribute("aria-pressed", String(this.loop));
    if (this.loop && entry) {
      this.player.playRange(this.index.boundaryIndex(entry.local.start_us), this.index.boundaryIndex(entry.local.end_us), { loop: true });
    } else {
      this.player.pause();
    }
  }

  run(action, i = 0) {
    const entry = this.entry();
    if (action !== "help" && action !== "escape") this.say("");
    if (this.readOnly && EDIT_ACTIONS.has(action)) {
      return this.say("Read-only: your role reads this annotation and cannot change it.", "error");
    }
    switch (action) {
      case "toggle": return this.player.toggle();
      case "frame": return this.player.step(i ? 1 : -1);
      case "frame10": return this.player.step(i ? 10 : -10);
      case "slower": return this.player.faster(-1);
      case "faster": return this.player.faster(1);
      case "normal": return this.player.setRate(1);
      case "loop": return this.toggleLoop();
      case "play-to-cutoff": return this.playToCutoff();
      case "step": return this.neighbour(i ? 1 : -1);
      case "prev-step": return this.neighbour(-1);
      case "next-step": return this.neighbour(1);
      case "bounds":
        if (!entry) return undefined;
        return this.player.seekFrame(i ? this.index.boundaryIndex(entry.local.end_us) - 1 : this.index.boundaryIndex(entry.local.start_us));
      case "set-start": return this.markHere("start_us");
      case "set-cutoff": return this.markHere("cutoff_us");
      case "set-outcome": return this.markHere("outcome_us");
      case "set-end": return this.markHere("end_us");
      case "choose": return this.chooseMark(MARK_KEYS[i]);
      case "nudge": return this.nudge(i ? 1 : -1);
      case "nudge-earlier": return this.nudge(-1);
      case "nudge-later": return this.nudge(1);
      case "goto-mark": return this.gotoMark();
      case "create": return this.create();
      case "split": return this.split();
      case "merge": return this.merge();
      case "retract": return this.structural("retract", {}, "Retracted: the step left the timeline; restore it from the list below.");
      case "restore-last": return this.restoreLast();
      case "edit": return this.panel.focusLabel();
      case "tags": return this.panel.focusTags();
      case "save": return this.saver.flushAll();
      case "history": return entry ? this.history.show(entry.id) : undefined;
      case "preview": return this.showPreview();
      case "zoom": return this.timeline.zoom(i ? 1 / 1.5 : 1.5);
      case "fit": return this.timeline.fit();
      case "help": return this.toggleHelp();
      case "escape": return this.escape();
      default: return undefined;
    }
  }

  toggleHelp(force) {
    const help = this.$("help");
    help.hidden = force === undefined ? !help.hidden : !force;
  }

  escape() {
    if (!this.$("help").hidden) return this.toggleHelp(false);
    if (this.history.open) return this.history.close();
    if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur();
    return undefined;
  }

  // Called only when the focus rule of keys.js lets a key be a shortcut (or for Ctrl+S / Esc).
  _key(name, event) {
    if (name === "Ctrl+s") {
      event.preventDefault();
      if (!this.readOnly) this.panel.tagEditor.commitTyped();
      this.saver.flushAll();
      return;
    }
    if (name === "Escape") {
      this.escape();
      return;
    }
    if (this.conflict.open) return;
    const found = KEYMAP.get(name);
    if (!found) return;
    event.preventDefault();
    this.run(found[0], found[1]);
  }
}

const root = document.getElementById("workspace");
const config = JSON.parse(document.getElementById("workspace-config").textContent);
nameFields(config.fieldNames);
setTagRules(config.tagRules);
const workspace = new Workspace(root, config);
workspace.load().catch((error) => {
  workspace.say(`The workspace could not load: ${error.message}. Reload to try again.`, "error");
  root.dataset.ready = "error";
});

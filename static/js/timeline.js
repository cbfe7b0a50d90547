// A zoomable timeline of the video's active steps: each step is a bar from start to end with
// its cutoff and outcome markers; the current step is highlighted; edges and markers can be
// dragged (snapped to frame boundaries); a click moves the playhead.

import { clock } from "./frames.js";

const MARKS = ["start_us", "cutoff_us", "outcome_us", "end_us"];
const MIN_PX_PER_S = 2;
const MAX_PX_PER_S = 4000;

export class Timeline extends EventTarget {
  constructor(root, { index, store, readOnly = false }) {
    super();
    this.readOnly = readOnly; // no dragging: a click only moves the playhead
    this.root = root;
    this.index = index;
    this.store = store;
    this.pxPerS = 40;
    this.current = null;
    this.playheadUs = 0;
    this.selectedMark = "start_us";
    this.track = document.createElement("div");
    this.track.className = "tl-track";
    this.playhead = document.createElement("div");
    this.playhead.className = "tl-playhead";
    this.steps = document.createElement("div");
    this.steps.className = "tl-steps";
    this.ruler = document.createElement("div");
    this.ruler.className = "tl-ruler";
    this.track.append(this.ruler, this.steps, this.playhead);
    root.append(this.track);
    this.track.addEventListener("pointerdown", (e) => this._pointerDown(e));
    this.fit();
  }

  x(us) {
    return (us / 1e6) * this.pxPerS;
  }

  us(x) {
    return Math.round((x / this.pxPerS) * 1e6);
  }

  fit() {
    const width = Math.max(this.root.clientWidth - 4, 200);
    this.setZoom(width / (this.index.duration / 1e6));
  }

  setZoom(pxPerS) {
    this.pxPerS = Math.min(Math.max(pxPerS, MIN_PX_PER_S), MAX_PX_PER_S);
    this.render();
    this.reveal(this.playheadUs);
  }

  zoom(factor) {
    this.setZoom(this.pxPerS * factor);
  }

  reveal(us) {
    const x = this.x(us);
    const { scrollLeft, clientWidth } = this.root;
    if (x < scrollLeft + 20 || x > scrollLeft + clientWidth - 20) {
      this.root.scrollLeft = Math.max(x - clientWidth / 2, 0);
    }
  }

  setPlayhead(us) {
    this.playheadUs = us;
    this.playhead.style.left = `${this.x(us)}px`;
    this.reveal(us);
  }

  setCurrent(id) {
    this.current = id;
    for (const el of this.steps.children) {
      el.classList.toggle("current", Number(el.dataset.id) === id);
    }
  }

  setSelectedMark(mark) {
    this.selectedMark = mark;
    this.root.dataset.mark = mark;
  }

  _ruler() {
    const seconds = this.index.duration / 1e6;
    const every = [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300].find((s) => s * this.pxPerS >= 60) || 600;
    this.ruler.replaceChildren();
    for (let s = 0; s <= seconds; s += every) {
      const tick = document.createElement("span");
      tick.className = "tl-tick";
      tick.style.left = `${this.x(s * 1e6)}px`;
      tick.textContent = every < 1 ? `${s.toFixed(1)}s` : `${Math.round(s)}s`;
      this.ruler.append(tick);
    }
  }

  render() {
    this.track.style.width = `${this.x(this.index.duration) + 2}px`;
    this._ruler();
    const bars = [];
    this.store.active().forEach((entry, n) => {
      const v = entry.local;
      const bar = document.createElement("div");
      bar.className = "tl-step";
      bar.dataset.id = String(entry.id);
      if (entry.id === this.current) bar.classList.add("current");
      if (Object.keys(this.store.validate(entry)).length) bar.classList.add("invalid");
      if (this.store.isDirty(entry)) bar.classList.add("dirty");
      bar.style.left = `${this.x(v.start_us)}px`;
      bar.style.width = `${Math.max(this.x(v.end_us - v.start_us), 2)}px`;
      const label = document.createElement("span");
      label.className = "tl-label";
      // Labels are text: set as textContent, never parsed as markup.
      label.textContent = `${n + 1} ${v.local_intent || ""}`;
      bar.title = `Step ${n + 1}: ${v.local_intent || "(no local intent yet)"} · ${clock(v.start_us)}–${clock(v.end_us)}`;
      bar.append(label);
      for (const mark of MARKS) {
        const handle = document.createElement("span");
        handle.className = `tl-mark tl-${mark.replace("_us", "")}`;
        handle.dataset.mark = mark;
        handle.title = mark.replace("_us", "");
        handle.style.left = `${this.x(v[mark] - v.start_us)}px`;
        bar.append(handle);
      }
      bars.push(bar);
    });
    this.steps.replaceChildren(...bars);
    this.playhead.style.left = `${this.x(this.playheadUs)}px`;
  }

  _timeAt(clientX) {
    const rect = this.track.getBoundingClientRect();
    return Math.min(Math.max(this.us(clientX - rect.left), 0), this.index.duration);
  }

  _pointerDown(event) {
    const handle = event.target.closest(".tl-mark");
    const bar = event.target.closest(".tl-step");
    if (handle && bar && !this.readOnly) {
      event.preventDefault();
      this._drag(event, Number(bar.dataset.id), handle.dataset.mark, handle);
      return;
    }
    const t = this._timeAt(event.clientX);
    this.dispatchEvent(new CustomEvent("seek", { detail: { us: t, id: bar ? Number(bar.dataset.id) : null } }));
  }

  _drag(event, id, mark, handle) {
    const entry = this.store.get(id);
    if (!entry) return;
    this.dispatchEvent(new CustomEvent("select", { detail: { id, mark } }));
    handle.setPointerCapture(event.pointerId);
    const bar = handle.parentElement;
    let value = entry.local[mark];
    const move = (e) => {
      value = this.index.snap(this._timeAt(e.clientX));
      const start = mark === "start_us" ? value : entry.local.start_us;
      handle.style.left = `${this.x(value - start)}px`;
      handle.classList.add("dragging");
      bar.dataset.preview = String(value);
    };
    const up = () => {
      handle.removeEventListener("pointermove", move);
      handle.removeEventListener("pointerup", up);
      handle.removeEventListener("pointercancel", up);
      handle.classList.remove("dragging");
      if (value !== entry.local[mark]) {
        this.dispatchEvent(new CustomEvent("mark", { detail: { id, mark, us: value } }));
      } else {
        this.render();
      }
    };
    handle.addEventListener("pointermove", move);
    handle.addEventListener("pointerup", up);
    handle.addEventListener("pointercancel", up);
  }
}

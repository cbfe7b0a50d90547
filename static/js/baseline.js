// The blind baseline rater page: renders the server's blind state (textContent only), keeps the
// rater's answers as an autosaved draft, and runs on the key scheme of every review page
// (campaign-item.js, review-keys.js): each dimension is a question, `a` writes its answer, and a
// key typed into an answer is only typed (Enter or Escape leaves it for its question).
import { campaignItem, el } from "./campaign-item.js";

const FRAME_S = 1 / 30;

const root = document.getElementById("baseline");
const $ = (role) => root.querySelector(`[data-role=${role}]`);

let state = null;
let answers = {}; // dimension id -> {answerable, answers, confidence}

function video() {
  return root.querySelector("video");
}

function renderClip() {
  const box = $("clip");
  const clip = state.clip;
  if (clip.status === "ready") {
    if (!video()) {
      // No native controls: no timeline to scrub; play, pause, frame step and replay only.
      const v = el("video", { muted: "", playsinline: "", preload: "auto" });
      v.src = clip.url;
      box.replaceChildren(v);
    }
  } else {
    const text = clip.status === "preparing" ? "Preparing the clip…"
      : clip.status === "failed" ? "The clip could not be prepared: report the item as broken (b)."
      : "No clip for this item on this server: report the item as broken (b).";
    box.replaceChildren(el("p", { class: "muted" }, text));
  }
}

function dims() {
  return state.dimensions;
}

function entry(id) {
  if (!answers[id]) answers[id] = { answerable: null, answers: [], confidence: null };
  return answers[id];
}

function dimensionNode(d, index, locked) {
  const source = locked ? ((state.answer || {}).dimensions || {}) : answers;
  const a = source[d.id] || { answerable: null, answers: [], confidence: null };
  const li = el("li", { class: "criterion dimension", "data-dimension": d.id });
  if (locked) {
    li.classList.add("locked");
  } else {
    li.dataset.question = "";
    li.tabIndex = 0;
    li.setAttribute("aria-label", d.name);
  }
  const head = el("div", { class: "criterion-head" });
  head.append(el("strong", {}, d.name), el("span", { class: "muted requirement" }, d.question));
  const choices = el("div", { class: "choices", role: "group", "aria-label": `${d.name}: answerable?` });
  for (const [value, text, key] of [[true, "Answerable", "y"], [false, "Not answerable", "n"]]) {
    const b = el("button", { type: "button", tabindex: "-1", class: `choice choice-${value ? "yes" : "no"}`, "aria-pressed": String(a.answerable === value) }, `${text} (${key})`);
    b.disabled = locked;
    b.addEventListener("click", () => { item.focusQuestion(index, { focus: false }); setAnswerable(value); });
    choices.append(b);
  }
  li.append(head, choices);
  if (a.answerable) {
    const box = el("div", { class: "answers" });
    const shown = locked ? a.answers.length : Math.min(d.max_answers, Math.max(1, a.answers.filter((t) => t.trim()).length + (d.max_answers > 1 ? 1 : 0)));
    for (let n = 0; n < shown; n++) {
      const label = d.max_answers > 1 ? `${d.name} answer ${n + 1}` : `${d.name} answer`;
      const input = el("input", { type: "text", tabindex: "-1", maxlength: "500", "aria-label": label, placeholder: n ? "Another possible answer (optional)" : "Your answer (a)" });
      input.value = a.answers[n] || "";
      input.disabled = locked;
      input.addEventListener("input", () => {
        const e = entry(d.id);
        e.answers[n] = input.value;
        item.changed();
      });
      input.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === "Escape") {
          event.preventDefault();
          event.stopPropagation();
          input.blur();
          renderDimensions();
          item.mark();
        }
      });
      box.append(input);
    }
    li.append(box);
  }
  const conf = el("div", { class: "confidence", role: "group", "aria-label": `${d.name}: confidence` });
  conf.append(el("span", {}, "Confidence:"));
  for (const value of state.confidence) {
    const b = el("button", { type: "button", tabindex: "-1", "aria-pressed": String(a.confidence === value) }, String(value));
    b.disabled = locked;
    b.addEventListener("click", () => { item.focusQuestion(index, { focus: false }); setConfidence(value); });
    conf.append(b);
  }
  li.append(conf);
  return li;
}

function renderDimensions() {
  const locked = state.submitted;
  if (locked && state.answer && state.answer.broken) {
    $("dimensions").replaceChildren(el("li", { class: "criterion locked" }, "You reported this item as broken."));
    return;
  }
  $("dimensions").replaceChildren(...dims().map((d, n) => dimensionNode(d, n, locked)));
}

function render() {
  $("instructions").textContent = state.instructions;
  renderClip();
  renderDimensions();
  for (const role of ["submit", "broken"]) $(role).hidden = state.submitted;
  $("done").hidden = !state.submitted;
}

function adopt(next) {
  state = next;
  const draft = next.draft || {};
  answers = next.submitted ? {} : JSON.parse(JSON.stringify(draft.dimensions || {}));
  $("broken-note").value = draft.note || "";
  render();
  if (!next.submitted) item.focusQuestion(0);
}

function payload() {
  const dimensions = {};
  for (const d of dims()) {
    if (!answers[d.id]) continue;
    const a = answers[d.id];
    dimensions[d.id] = { answerable: a.answerable, answers: a.answerable ? Array.from(a.answers.slice(0, d.max_answers), (t) => t || "") : [], confidence: a.confidence };
  }
  return { dimensions, note: $("broken-note").value };
}

// A choice answers the current question and leaves the focus where it is (`a` writes).
function setAnswerable(value) {
  const d = dims()[item.index];
  if (!d || !item.seen()) return;
  const e = entry(d.id);
  e.answerable = value;
  renderDimensions();
  item.mark();
  item.changed();
}

function setConfidence(value) {
  const d = dims()[item.index];
  if (!d || !item.seen()) return;
  entry(d.id).confidence = value;
  renderDimensions();
  item.mark();
  item.changed();
}

function write() {
  const d = dims()[item.index];
  if (!d) return;
  if (!entry(d.id).answerable) { item.status(`Mark ${d.name} answerable (y) to write an answer.`); return; }
  renderDimensions();
  const inputs = [...root.querySelectorAll(`[data-dimension=${d.id}] .answers input`)];
  const target = inputs.find((i) => !i.value.trim()) || inputs[inputs.length - 1];
  if (target) target.focus();
}

function problems() {
  const out = [];
  for (const d of dims()) {
    const a = answers[d.id] || {};
    if (a.answerable !== true && a.answerable !== false) out.push(`${d.name}: answerable?`);
    else if (a.answerable && !(a.answers || []).some((t) => t.trim())) out.push(`${d.name}: your answer`);
    if (!a.confidence) out.push(`${d.name}: confidence`);
  }
  return out;
}

async function send(body) {
  if (state.submitted) return;
  await item.submit({ payload: body });
}

function submitItem() {
  const missing = problems();
  if (missing.length) {
    item.status(`Still missing: ${missing.join(", ")}.`, "error");
    const first = dims().findIndex((d) => missing.some((m) => m.startsWith(`${d.name}:`)));
    if (first >= 0) item.focusQuestion(first);
    return;
  }
  const body = payload();
  delete body.note;
  send({ broken: false, dimensions: body.dimensions });
}

function showBroken(show) {
  $("broken-box").hidden = !show;
  if (show) $("broken-note").focus();
}

function submitBroken() {
  send({ broken: true, note: $("broken-note").value });
}

function player(action) {
  const v = video();
  if (!v) return;
  if (action === "play") { if (v.paused) v.play().catch(() => {}); else v.pause(); }
  if (action === "back" || action === "fwd") {
    v.pause();
    v.currentTime = Math.max(0, v.currentTime + (action === "fwd" ? FRAME_S : -FRAME_S));
  }
  if (action === "replay") { v.currentTime = 0; v.play().catch(() => {}); }
}

function onKey(name, event) {
  if (name === "Ctrl+Enter" && !$("broken-box").hidden) { submitBroken(); event.preventDefault(); return; }
  switch (name) {
    case "Space": player("play"); break;
    case "ArrowLeft": player("back"); break;
    case "ArrowRight": player("fwd"); break;
    case "r": player("replay"); break;
    case "y": setAnswerable(true); break;
    case "n": setAnswerable(false); break;
    case "a": write(); break;
    case "Enter": submitItem(); break;
    case "b": showBroken(true); break;
    default:
      if (/^[1-5]$/.test(name)) setConfidence(Number(name));
      else return;
  }
  event.preventDefault();
}

// "local" → "Local intent"; "local.answers" → "Local intent · answers".
function label(field) {
  const [id, ...rest] = field.split(".");
  const d = state && state.dimensions.find((x) => x.id === id);
  return d ? [d.name, ...rest].join(" · ") : field;
}

const item = campaignItem(root, {
  kind: "human_baseline",
  label,
  question: (field) => (state ? state.dimensions.findIndex((d) => d.id === field.split(".")[0]) : -1),
  draft: () => ({ payload: payload() }),
  done: (s) => s.submitted,
  stage: (s) => s.submitted,
  adopt,
  update: (next, prev) => {
    state = next;
    if (prev.clip.status !== next.clip.status) renderClip();
  },
  preparing: (s) => s.clip.status === "preparing",
  onKey,
  anywhere: ["Ctrl+Enter"],
  escape: () => { if (!$("broken-box").hidden) showBroken(false); },
});
$("submit").addEventListener("click", submitItem);
$("broken").addEventListener("click", () => showBroken(true));
$("broken-confirm").addEventListener("click", submitBroken);
$("broken-cancel").addEventListener("click", () => showBroken(false));
$("broken-note").addEventListener("input", item.changed);
for (const action of ["play", "back", "fwd", "replay"]) $(action).addEventListener("click", () => player(action));
item.refresh();

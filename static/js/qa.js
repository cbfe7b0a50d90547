// The QA group review page: the clip of the group's span with every evidence interval on its
// timeline, the turns, per-turn checks, a decision with reasons, proposed edits. Renders the
// server's state with textContent only, autosaves a draft, and runs on the key scheme of every
// review page (campaign-item.js, review-keys.js): each (turn, check) is a question and the
// decision is the last one; p/f/s answer the current check and stay on it. Once submitted the
// group is read-only and the next one opens. Jumping to an interval lands the frame-exact player
// (player.js) on the interval's first frame, then plays the interval, with sound for auditory
// evidence.
import { campaignItem, el } from "./campaign-item.js";
import { FrameIndex, clock } from "./frames.js";
import { Player } from "./player.js";

const root = document.getElementById("qa");
const $ = (role) => root.querySelector(`[data-role=${role}]`);

let state = null;
let player = null;
let answer = emptyAnswer();
let lastJump = null; // the evidence interval jumped to last
let jumpToken = 0; // a later key cancels an earlier jump's playback

function emptyAnswer() {
  return { decision: "", reasons: [], comment: "", media_unplayable: false, evidence_unverifiable: false, turns: [], edits: [] };
}

// Times on the clip as everywhere else: m:ss.mmm (frames.js).
function seconds(us) {
  return clock(us);
}

// A stored code's label, as the server sends it (studio/vocabulary.py).
function labelOf(labels, code) {
  return (labels || {})[code] || code;
}

function allEvidence() {
  return state.turns.flatMap((t) => t.evidence.map((e) => ({ ...e, turn: t.position })));
}

function checkRows() {
  return state.turns.flatMap((t) => state.checks.map((c) => ({ turn: t.position, check: c })));
}

// --- the clip and its timeline ---------------------------------------------------------------

function renderClip() {
  const box = $("clip");
  const clip = state.clip;
  if (clip.status !== "ready") {
    const text = clip.status === "preparing" ? "Preparing the clip…"
      : clip.status === "failed" ? "The clip could not be prepared; mark the media as not playing and tell an admin."
      : "No clip for this group on this server.";
    box.replaceChildren(el("p", { class: "muted" }, text));
    return;
  }
  if (box.querySelector("video")) return;
  const video = el("video", { playsinline: "", preload: "auto", "data-role": "video" });
  video.src = clip.url;
  box.replaceChildren(video);
  const index = new FrameIndex(Float64Array.from(clip.frame_times_us), clip.duration_us);
  player = new Player(video, index);
  player.addEventListener("frame", () => drawPlayhead());
  video.addEventListener("loadeddata", async () => {
    index.origin = await player.calibrate(0);
    await player.seekFrame(0);
    root.dataset.ready = "1";
  }, { once: true });
  // An interval that ends with the clip can reach the end before the last frame is reported:
  // land on the interval's last frame all the same.
  video.addEventListener("ended", () => {
    const range = player.range;
    if (range) {
      player.range = null;
      player.seekFrame(range.to - 1);
    }
  });
  video.addEventListener("error", () => item.status("The clip will not play here; mark the media as not playing.", "error"));
}

function renderTimeline() {
  const line = $("timeline");
  const span = state.span_us;
  const parts = allEvidence().map((ev) => {
    const button = el("button", {
      type: "button",
      class: `interval ${ev.modality}`,
      "data-number": String(ev.number),
      title: `${ev.number}: ${labelOf(state.modality_labels, ev.modality)}, ${seconds(ev.start_us)}–${seconds(ev.end_us)}`,
    }, String(ev.number));
    button.style.left = `${(100 * ev.start_us) / span}%`;
    button.style.width = `${(100 * (ev.end_us - ev.start_us)) / span}%`;
    button.addEventListener("click", () => jump(ev.number));
    return button;
  });
  // A predictive turn's decision cutoff: a model asked that turn sees only what comes before it.
  const cutoffs = state.turns.filter((t) => t.cutoff_us != null).map((t) => {
    const mark = el("span", {
      class: "cutoff",
      "data-turn": String(t.position + 1),
      title: `Turn ${t.position + 1}: decision cutoff at ${seconds(t.cutoff_us)}`,
    }, `cutoff ${t.position + 1}`);
    mark.style.left = `${Math.min(100, (100 * t.cutoff_us) / span)}%`;
    return mark;
  });
  line.replaceChildren(...parts, ...cutoffs, el("span", { class: "playhead", "data-role": "playhead" }));
}

function drawPlayhead() {
  if (!player) return;
  const head = $("playhead");
  const t = player.index.timeOf(player.frame);
  if (head) head.style.left = `${Math.min(100, (100 * t) / state.span_us)}%`;
  // Frames numbered from 0 as in the workspace (and as an interval edit takes them: #36).
  $("frame-readout").textContent = `#${player.frame} · ${clock(t)} · ${player.index.count} frames on the clip`;
}

async function jump(number) {
  const ev = allEvidence().find((e) => e.number === number);
  if (!ev) return;
  for (const b of $("timeline").querySelectorAll(".interval")) b.classList.toggle("active", b.dataset.number === String(number));
  if (!player) {
    item.status("The clip is not ready yet.", "error");
    return;
  }
  player.video.muted = ev.modality !== "auditory";
  const first = Math.min(ev.first_frame, player.index.count - 1);
  lastJump = ev;
  const token = ++jumpToken;
  player.pause();
  await player.seekFrame(first);
  if (token !== jumpToken) return; // another key came first
  root.dataset.landed = `${number}:${player.frame}`;
  item.status(`Evidence ${number} (${ev.modality}) from frame ${first + 1}`);
  const end = Math.max(ev.end_frame, first + 1);
  if (end - first < 2) return;
  // Already on the first frame: play from here and stop on the interval's last frame.
  player.range = { from: first, to: end, loop: false };
  player.video.play().catch(() => {
    // Sound may need a gesture on some browsers: play muted instead of not at all.
    player.video.muted = true;
    if (token === jumpToken) player.video.play().catch(() => {});
  });
}

// --- turns, checks, decision, edits ----------------------------------------------------------

function renderTurns() {
  const items = state.turns.map((turn) => {
    const li = el("li", { "data-turn": String(turn.position) });
    li.append(el("p", { class: "question" }, turn.question));
    li.append(el("p", { class: "answer" }, `Reference answer: ${turn.answer}`));
    if (turn.options) {
      const ul = el("ul", { class: "options" });
      for (const o of turn.options) ul.append(el("li", {}, o));
      li.append(ul);
    }
    if (turn.cutoff_us != null) li.append(el("p", { class: "cutoff-note" }, `Predictive: decision cutoff at ${seconds(turn.cutoff_us)}; a model asked this turn sees only what comes before it.`));
    if (turn.depends_on.length) li.append(el("p", { class: "muted" }, `Builds on turn ${turn.depends_on.map((d) => d + 1).join(", ")}`));
    const evs = el("ul", { class: "ev" });
    for (const ev of turn.evidence) {
      const row = el("li", {});
      const button = el("button", { type: "button", "data-jump": String(ev.number) }, `Evidence ${ev.number}`);
      button.addEventListener("click", () => jump(ev.number));
      row.append(button, ` ${labelOf(state.modality_labels, ev.modality)} · ${seconds(ev.start_us)}–${seconds(ev.end_us)} · `, el("span", { class: "desc" }, ev.description));
      evs.append(row);
    }
    li.append(evs);
    return li;
  });
  $("turns").replaceChildren(...items);
}

const CHECK_KEYS = { pass: "p", fail: "f", unsure: "s" };

function locked() {
  return Boolean(state && state.done);
}

function renderChecks() {
  const rows = checkRows().map((row, i) => {
    const li = el("li", { class: "criterion", "data-index": String(i) });
    if (locked()) {
      li.classList.add("locked");
    } else {
      li.tabIndex = 0;
      li.dataset.question = "";
    }
    li.setAttribute("aria-label", `Turn ${row.turn + 1}: ${row.check.label}`);
    li.append(el("span", { class: "name" }, `Turn ${row.turn + 1}: ${row.check.label}`));
    const current = (answer.turns[row.turn] || {})[row.check.code] || "";
    for (const value of state.check_values) {
      const b = el("button", { type: "button", tabindex: "-1", "aria-pressed": String(current === value), "data-value": value }, `${labelOf(state.check_value_labels, value)} (${CHECK_KEYS[value] || value[0]})`);
      b.disabled = locked();
      b.addEventListener("click", () => { item.focusQuestion(i, { focus: false }); setCheck(value, { seen: true }); });
      li.append(b);
    }
    return li;
  });
  $("checks").replaceChildren(...rows);
  const decision = $("decision");
  if (locked()) {
    delete decision.dataset.question;
    decision.removeAttribute("tabindex");
    decision.classList.remove("focused");
  }
  else {
    decision.dataset.question = "";
    decision.tabIndex = 0;
  }
}

function renderDecision() {
  const buttons = state.decisions.map((d) => {
    const key = { accept: "a", revise: "r", reject: "x", uncertain: "u" }[d.code];
    const b = el("button", { type: "button", tabindex: "-1", "aria-pressed": String(answer.decision === d.code), "data-decision": d.code }, key ? `${d.label} (${key})` : d.label);
    b.disabled = locked();
    b.addEventListener("click", () => setDecision(d.code));
    return b;
  });
  $("decisions").replaceChildren(...buttons);
  const reasons = state.reasons.map((r) => {
    const label = el("label", {});
    const box = el("input", { type: "checkbox", value: r.code, "data-reason": r.code });
    box.checked = answer.reasons.includes(r.code);
    box.disabled = locked();
    box.addEventListener("change", () => {
      answer.reasons = state.reasons.map((x) => x.code).filter((c) => root.querySelector(`[data-reason=${c}]`).checked);
      item.changed();
    });
    label.append(box, ` ${r.label}`);
    return el("div", {}, "").appendChild(label).parentNode;
  });
  $("reasons").replaceChildren(...reasons);
  $("unplayable").checked = answer.media_unplayable;
  $("unverifiable").checked = answer.evidence_unverifiable;
  $("comment").value = answer.comment;
  for (const role of ["unplayable", "unverifiable", "comment"]) $(role).disabled = locked();
}

function renderEdits() {
  const items = answer.edits.map((edit, i) => {
    const li = el("li", { "data-edit": String(i) });
    const where = [edit.turn != null ? `turn ${edit.turn + 1}` : "", edit.evidence != null ? `evidence ${edit.evidence + 1}` : ""].filter(Boolean).join(", ");
    li.append(el("span", {}, `${edit.field}${where ? ` (${where})` : ""}: ${JSON.stringify(edit.value)} — ${edit.reason} `));
    if (!locked()) {
      const remove = el("button", { type: "button" }, "Remove");
      remove.addEventListener("click", () => { answer.edits.splice(i, 1); renderEdits(); item.changed(); });
      li.append(remove);
    }
    return li;
  });
  $("edits").replaceChildren(...items);
}

const GROUP_FIELDS = ["structure", "category", "modality"];
const EVIDENCE_FIELDS = ["interval", "evidence_modality", "description"];
const PLACEHOLDERS = {
  options: "option one | option two | …",
  interval: "start–end on the clip: 1.2-2.5, 0:01.200-0:02.500 or #36-#75",
  structure: "node, edge, chain or loop",
  modality: "visual, auditory or audio_visual",
  evidence_modality: "visual or auditory",
};

function renderEditForm() {
  const field = $("edit-field");
  field.replaceChildren(...state.edit_fields.map((f) => el("option", { value: f.code }, f.label)));
  const turn = $("edit-turn");
  turn.replaceChildren(...state.turns.map((t) => el("option", { value: String(t.position) }, `Turn ${t.position + 1}`)));
  const sync = () => {
    const code = field.value;
    turn.disabled = GROUP_FIELDS.includes(code);
    const t = state.turns[Number(turn.value) || 0];
    const ev = $("edit-evidence");
    ev.replaceChildren(...t.evidence.map((e) => el("option", { value: String(e.position) }, `Evidence ${e.number}`)));
    ev.disabled = !EVIDENCE_FIELDS.includes(code);
    $("edit-value").placeholder = PLACEHOLDERS[code] || "";
  };
  field.addEventListener("change", sync);
  turn.addEventListener("change", sync);
  sync();
  $("edit-form").addEventListener("submit", (event) => {
    event.preventDefault();
    addEdit();
  });
}

function editValue(code, text) {
  if (code === "options") return text.split("|").map((s) => s.trim()).filter(Boolean);
  // An interval goes as typed: the server reads it on the clip's frames (one parser for typed
  // times, studio.display.parse_timecode) and names what it cannot read.
  if (code === "interval") return text.trim();
  return text.trim();
}

function addEdit() {
  const code = $("edit-field").value;
  const value = editValue(code, $("edit-value").value);
  const reason = $("edit-reason").value.trim();
  if (value === null || value === "" || !reason) {
    item.status("An edit needs a new value and a reason.", "error");
    return;
  }
  answer.edits.push({
    field: code,
    turn: GROUP_FIELDS.includes(code) ? null : Number($("edit-turn").value),
    evidence: EVIDENCE_FIELDS.includes(code) ? Number($("edit-evidence").value) : null,
    value,
    reason,
  });
  $("edit-value").value = "";
  $("edit-reason").value = "";
  renderEdits();
  item.changed();
  item.status(`Edit added (${answer.edits.length}); the original stays as it is.`);
  document.activeElement.blur();
}

// A check's answer stays on its check: j (or Tab) moves on.
function setCheck(value, { seen = false } = {}) {
  const row = checkRows()[item.index];
  if (!row || locked()) {
    if (!row) item.status("Move to a check first (k).");
    return;
  }
  if (!seen && !item.seen()) return;
  while (answer.turns.length <= row.turn) answer.turns.push({});
  answer.turns[row.turn] = { ...answer.turns[row.turn], [row.check.code]: value };
  renderChecks();
  item.mark();
  item.changed();
}

function setDecision(code) {
  if (locked()) return;
  answer.decision = code;
  renderDecision();
  item.changed();
}

function toggle(key) {
  if (locked()) return;
  answer[key] = !answer[key];
  if (answer[key]) answer.decision = "uncertain";
  renderDecision();
  item.changed();
}

// --- draft, submit ---------------------------------------------------------------------------

function payload() {
  return {
    ...answer,
    comment: $("comment").value,
    turns: state.turns.map((t) => ({ ...Object.fromEntries(state.checks.map((c) => [c.code, ""])), ...(answer.turns[t.position] || {}) })),
  };
}

async function submitDecision() {
  if (state.done) return;
  await item.submit({ part: "", payload: payload() });
}

// --- keys ------------------------------------------------------------------------------------

function onKey(name, event) {
  const acts = {
    Space: () => player && player.toggle(),
    p: () => setCheck("pass"), f: () => setCheck("fail"), s: () => setCheck("unsure"),
    a: () => setDecision("accept"), r: () => setDecision("revise"),
    x: () => setDecision("reject"), u: () => setDecision("uncertain"),
    m: () => toggle("media_unplayable"), v: () => toggle("evidence_unverifiable"),
    c: () => $("comment").focus(),
    e: () => $("edit-field").focus(),
    g: () => backToFirst(),
    Enter: () => submitDecision(),
  };
  if (/^[1-9]$/.test(name)) {
    event.preventDefault();
    jump(Number(name));
    return;
  }
  const act = acts[name];
  if (act) {
    event.preventDefault();
    act();
  }
}

async function backToFirst() {
  if (!player || !lastJump) return;
  jumpToken += 1;
  player.pause();
  await player.seekFrame(Math.min(lastJump.first_frame, player.index.count - 1));
  root.dataset.landed = `${lastJump.number}:${player.frame}`;
}

function renderAll() {
  $("structure").textContent = state.structure_label;
  $("modality").textContent = state.modality_label;
  $("category").textContent = state.category_label || state.category.replaceAll("_", " ");
  $("instructions").textContent = state.instructions;
  renderClip();
  renderTimeline();
  renderTurns();
  renderChecks();
  renderDecision();
  renderEdits();
  $("done").hidden = !state.done;
  $("submit").hidden = state.done;
  $("edit-form").hidden = state.done;
}

let loaded = false;

// The first state brings the saved answer and the edit form; later ones (a submission, the clip
// once it is prepared) are rendered over what the reviewer has. A submitted group shows what
// was submitted, read-only.
function adopt(next) {
  state = next;
  if (!loaded) {
    loaded = true;
    const saved = next.answer || next.draft;
    if (saved) answer = { ...emptyAnswer(), ...saved };
    renderEditForm();
  }
  if (next.answer) answer = { ...emptyAnswer(), ...next.answer };
  renderAll();
  if (!next.done) item.focusQuestion(item.index);
}

// The server names a bad field by its path ("turns.0.evidence_alignment"): the page by its label.
function label(field) {
  const m = /^turns\.(\d+)\.(\w+)$/.exec(field);
  if (m && state) {
    const check = state.checks.find((c) => c.code === m[2]);
    return `Turn ${Number(m[1]) + 1} · ${check ? check.label : m[2]}`;
  }
  return { decision: "Decision", reasons: "Reasons", comment: "Comment", edits: "Proposed edits", turns: "Checks" }[field] || field;
}

function questionOfField(field) {
  const m = /^turns\.(\d+)\.(\w+)$/.exec(field);
  if (m && state) return Number(m[1]) * state.checks.length + state.checks.findIndex((c) => c.code === m[2]);
  return ["decision", "reasons", "comment"].includes(field) && state ? checkRows().length : -1;
}

const item = campaignItem(root, {
  kind: "qa_review",
  label,
  question: questionOfField,
  draft: () => ({ part: "", payload: payload() }),
  done: (s) => s.done,
  stage: (s) => s.done,
  adopt,
  update: (next) => {
    state = next;
    if (next.clip.status !== "preparing") renderClip();
  },
  preparing: (s) => s.clip.status === "preparing",
  onKey,
});
$("comment").addEventListener("input", () => { answer.comment = $("comment").value; item.changed(); });
$("unplayable").addEventListener("change", () => toggle("media_unplayable"));
$("unverifiable").addEventListener("change", () => toggle("evidence_unverifiable"));
$("submit").addEventListener("click", () => submitDecision());
item.refresh();

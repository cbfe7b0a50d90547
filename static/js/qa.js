// The QA group review page: the clip of the group's span with every evidence interval on its
// timeline, the turns, per-turn checks, a decision with reasons, proposed edits. Renders the
// server's state with textContent only, autosaves a draft, and is driven from the keyboard
// under the workspace's focus rule (keys.js). Jumping to an interval lands the frame-exact
// player (player.js) on the interval's first frame, then plays the interval, with sound for
// auditory evidence.
import { campaignItem, el } from "./campaign-item.js";
import { FrameIndex, clock } from "./frames.js";
import { Player } from "./player.js";

export const QA_BINDINGS = [
  ["Clip", [
    [["1", "2", "3", "4", "5", "6", "7", "8", "9"], "jump to evidence interval 1 … 9 and play it", "jump"],
    [["g"], "back to the first frame of that interval, paused", "first"],
    [["Space"], "play / pause", "play"],
  ]],
  ["Checks", [
    [["j", "ArrowDown"], "next check", "down"],
    [["k", "ArrowUp"], "previous check", "up"],
    [["p"], "pass for the focused check", "pass"],
    [["f"], "fail for the focused check", "fail"],
    [["s"], "unsure for the focused check", "unsure"],
  ]],
  ["Decision", [
    [["a"], "accept", "accept"],
    [["r"], "request revision", "revise"],
    [["x"], "reject", "reject"],
    [["u"], "uncertain", "uncertain"],
    [["m"], "the media will not play (forces uncertain)", "unplayable"],
    [["v"], "the evidence cannot be verified (forces uncertain)", "unverifiable"],
    [["c"], "write a comment", "comment"],
    [["e"], "propose an edit (focus the edit form)", "edit"],
    [["Enter"], "submit the decision", "submit"],
    [["Escape"], "leave a field, close the help", "escape"],
    [["?"], "this help", "help"],
  ]],
];

const root = document.getElementById("qa");
const $ = (role) => root.querySelector(`[data-role=${role}]`);

let state = null;
let player = null;
let focus = 0;
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
  line.replaceChildren(...parts, el("span", { class: "playhead", "data-role": "playhead" }));
}

function drawPlayhead() {
  if (!player) return;
  const head = $("playhead");
  const t = player.index.timeOf(player.frame);
  if (head) head.style.left = `${Math.min(100, (100 * t) / state.span_us)}%`;
  $("frame-readout").textContent = `Frame ${player.frame + 1} of ${player.index.count} · ${seconds(t)}`;
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

function renderChecks() {
  const rows = checkRows().map((row, i) => {
    const li = el("li", { class: i === focus ? "criterion focused" : "criterion", "data-index": String(i) });
    li.append(el("span", { class: "name" }, `Turn ${row.turn + 1}: ${row.check.label}`));
    const current = (answer.turns[row.turn] || {})[row.check.code] || "";
    for (const value of state.check_values) {
      const b = el("button", { type: "button", "aria-pressed": String(current === value), "data-value": value }, labelOf(state.check_value_labels, value));
      b.addEventListener("click", () => { focus = i; setCheck(value); });
      li.append(b);
    }
    return li;
  });
  $("checks").replaceChildren(...rows);
}

function renderDecision() {
  const buttons = state.decisions.map((d) => {
    const b = el("button", { type: "button", "aria-pressed": String(answer.decision === d.code), "data-decision": d.code }, d.label);
    b.addEventListener("click", () => setDecision(d.code));
    return b;
  });
  $("decisions").replaceChildren(...buttons);
  const reasons = state.reasons.map((r) => {
    const label = el("label", {});
    const box = el("input", { type: "checkbox", value: r.code, "data-reason": r.code });
    box.checked = answer.reasons.includes(r.code);
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
}

function renderEdits() {
  const items = answer.edits.map((edit, i) => {
    const li = el("li", { "data-edit": String(i) });
    const where = [edit.turn != null ? `turn ${edit.turn + 1}` : "", edit.evidence != null ? `evidence ${edit.evidence + 1}` : ""].filter(Boolean).join(", ");
    li.append(el("span", {}, `${edit.field}${where ? ` (${where})` : ""}: ${JSON.stringify(edit.value)} — ${edit.reason} `));
    const remove = el("button", { type: "button" }, "Remove");
    remove.addEventListener("click", () => { answer.edits.splice(i, 1); renderEdits(); item.changed(); });
    li.append(remove);
    return li;
  });
  $("edits").replaceChildren(...items);
}

const GROUP_FIELDS = ["structure", "category", "modality"];
const EVIDENCE_FIELDS = ["interval", "evidence_modality", "description"];
const PLACEHOLDERS = {
  options: "option one | option two | …",
  interval: "start–end in seconds on the clip, e.g. 1.20-2.50",
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
  if (code === "interval") {
    const m = text.match(/^\s*([0-9.]+)\s*[-–]\s*([0-9.]+)\s*$/);
    if (!m) return null;
    return [Math.round(Number(m[1]) * 1e6), Math.round(Number(m[2]) * 1e6)];
  }
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

function setCheck(value) {
  const row = checkRows()[focus];
  if (!row) return;
  while (answer.turns.length <= row.turn) answer.turns.push({});
  answer.turns[row.turn] = { ...answer.turns[row.turn], [row.check.code]: value };
  if (focus < checkRows().length - 1) focus += 1;
  renderChecks();
  item.changed();
}

function setDecision(code) {
  answer.decision = code;
  renderDecision();
  item.changed();
}

function toggle(key) {
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
  if (await item.submit({ part: "", payload: payload() })) item.status("Decision submitted.", "ok");
}

// --- keys ------------------------------------------------------------------------------------

function onKey(name, event) {
  const acts = {
    " ": () => player && player.toggle(),
    Space: () => player && player.toggle(),
    j: () => moveFocus(1), ArrowDown: () => moveFocus(1),
    k: () => moveFocus(-1), ArrowUp: () => moveFocus(-1),
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

function moveFocus(delta) {
  focus = Math.min(Math.max(focus + delta, 0), checkRows().length - 1);
  renderChecks();
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
  root.dataset.done = state.done ? "1" : "";
}

let loaded = false;

// The first state brings the saved answer and the edit form; later ones (a submission, the clip
// once it is prepared) are rendered over what the reviewer has.
function adopt(next) {
  state = next;
  if (!loaded) {
    loaded = true;
    const saved = next.answer || next.draft;
    if (saved) answer = { ...emptyAnswer(), ...saved };
    renderEditForm();
  }
  renderAll();
}

const item = campaignItem(root, {
  draft: () => ({ part: "", payload: payload() }),
  done: (s) => s.done,
  stage: (s) => s.done,
  adopt,
  update: (next) => {
    state = next;
    if (next.clip.status !== "preparing") renderClip();
  },
  preparing: (s) => s.clip.status === "preparing",
  bindings: QA_BINDINGS,
  onKey,
});
$("comment").addEventListener("input", () => { answer.comment = $("comment").value; item.changed(); });
$("unplayable").addEventListener("change", () => toggle("media_unplayable"));
$("unverifiable").addEventListener("change", () => toggle("evidence_unverifiable"));
$("submit").addEventListener("click", () => submitDecision());
item.refresh();

// The blind audit item page: renders the server's blind state (textContent only), keeps the
// reviewer's answers as an autosaved draft, and drives everything from the keyboard under the
// workspace's focus rule (keys.js): a key typed into a comment is only typed.
import { campaignItem, el } from "./campaign-item.js";

export const AUDIT_BINDINGS = [
  ["Answer", [
    [["v"], "Valid for the focused criterion", "valid"],
    [["i"], "Invalid for the focused criterion", "invalid"],
    [["u"], "Uncertain for the focused criterion", "uncertain"],
    [["1", "2", "3"], "with Invalid: toggle error type 1, 2, 3 … of the focused criterion", "type"],
    [["c"], "write a comment on the focused criterion", "comment"],
    [["Escape"], "leave the comment, close the help", "escape"],
  ]],
  ["Move", [
    [["j", "ArrowDown"], "next criterion", "down"],
    [["k", "ArrowUp"], "previous criterion", "up"],
    [["Enter"], "submit this phase (phase 1 opens phase 2; phase 2 goes to the next item)", "submit"],
    [["Space"], "play / pause the clip", "play"],
    [["?"], "this help", "help"],
  ]],
];

const LABELS = [["valid", "Valid", "v"], ["invalid", "Invalid", "i"], ["uncertain", "Uncertain", "u"]];
const root = document.getElementById("audit");
const $ = (role) => root.querySelector(`[data-role=${role}]`);

let state = null;
let part = "phase1";
let answers = {}; // criterion id -> {label, comment, error_types}
let focus = 0;

function current() {
  return state.criteria.filter((c) => c.phase === (part === "phase1" ? 1 : 2));
}

function renderClip(box, clip, marks, duration) {
  const shown = box.querySelector("video");
  if (clip.status === "ready") {
    if (!shown || shown.dataset.kind !== part) {
      const video = el("video", { controls: "", loop: "", muted: "", playsinline: "", preload: "auto" });
      video.dataset.kind = part;
      video.src = clip.url;
      box.replaceChildren(video);
    }
  } else {
    const text = clip.status === "preparing" ? "Preparing the clip…"
      : clip.status === "failed" ? "The clip could not be prepared; tell an admin."
      : "No clip for this item on this server.";
    box.replaceChildren(el("p", { class: "muted" }, text));
  }
  const line = $("timeline");
  if (marks && duration) {
    line.hidden = false;
    const bar = el("div", { class: "bar" });
    for (const [name, label] of [["start", "start"], ["cutoff", "cutoff"], ["outcome", "outcome"], ["end", "end"]]) {
      const mark = el("span", { class: `mark mark-${name}`, title: `${label} ${marks[name].toFixed(2)} s` }, label);
      mark.style.left = `${Math.max(0, Math.min(100, (100 * marks[name]) / duration))}%`;
      bar.append(mark);
    }
    line.replaceChildren(bar, el("p", { class: "muted" }, "The model's observation ends at the cutoff; the outcome mark is where it becomes visible."));
  } else {
    line.hidden = true;
  }
}

function renderTexts() {
  $("local").textContent = state.observation.local_intent;
  $("procedural").textContent = state.observation.procedural_intent;
  const ctx = state.context;
  for (const role of ["next-label", "next", "plausible-label", "plausible"]) $(role).hidden = !ctx;
  if (ctx) {
    $("next").textContent = ctx.next_step;
    const list = el("ul");
    for (const item of ctx.plausible_next_steps) list.append(el("li", {}, item));
    if (!ctx.plausible_next_steps.length) list.append(el("li", { class: "muted" }, "none recorded"));
    $("plausible").replaceChildren(list);
  }
}

function criterionNode(c, index, locked) {
  const answer = (locked ? (state.answers[c.phase === 1 ? "phase1" : "phase2"] || {}).criteria || {} : answers)[c.id] || {};
  const li = el("li", { class: "criterion", "data-criterion": c.id });
  if (!locked && index === focus) li.classList.add("focused");
  if (locked) li.classList.add("locked");
  const head = el("div", { class: "criterion-head" });
  head.append(el("strong", {}, `${c.id} ${c.name}`), el("span", { class: "muted requirement" }, c.requirement));
  const choices = el("div", { class: "choices", role: "group", "aria-label": `${c.id} answer` });
  for (const [value, text, key] of LABELS) {
    const b = el("button", { type: "button", class: `choice choice-${value}`, "data-label": value, "aria-pressed": String(answer.label === value) }, `${text} (${key})`);
    if (locked) b.disabled = true;
    b.addEventListener("click", () => { focus = index; choose(value); });
    choices.append(b);
  }
  li.append(head, choices);
  if (answer.label === "invalid") {
    const types = el("fieldset", { class: "types" });
    types.append(el("legend", {}, "Error types"));
    state.error_types.forEach((t, n) => {
      const label = el("label");
      const box = el("input", { type: "checkbox", value: t.code });
      box.checked = (answer.error_types || []).includes(t.code);
      box.disabled = locked;
      box.addEventListener("change", () => { focus = index; toggleType(t.code); });
      label.append(box, ` ${n < 9 ? `${n + 1} · ` : ""}${t.name}`);
      types.append(label);
    });
    li.append(types);
  }
  const comment = el("textarea", { rows: "2", placeholder: "Comment (optional)", "aria-label": `${c.id} comment` });
  comment.value = answer.comment || "";
  comment.disabled = locked;
  comment.addEventListener("input", () => {
    answers[c.id] = { ...(answers[c.id] || {}), comment: comment.value };
    item.changed();
  });
  comment.addEventListener("focus", () => { if (!locked) { focus = index; markFocus(); } });
  li.append(comment);
  return li;
}

function markFocus() {
  root.querySelectorAll(".criterion:not(.locked)").forEach((li, n) => li.classList.toggle("focused", n === focus));
  const node = root.querySelectorAll(".criterion:not(.locked)")[focus];
  if (node) node.scrollIntoView({ block: "nearest" });
}

function renderCriteria() {
  const list = $("criteria");
  const nodes = [];
  if (part === "phase2" || part === "done") {
    for (const c of state.criteria.filter((x) => x.phase === 1)) nodes.push(criterionNode(c, -1, true));
  }
  if (part !== "done") current().forEach((c, n) => nodes.push(criterionNode(c, n, false)));
  else for (const c of state.criteria.filter((x) => x.phase === 2)) nodes.push(criterionNode(c, -1, true));
  list.replaceChildren(...nodes);
}

function renderMedia() {
  const ctx = state.context;
  if (ctx) renderClip($("clip"), ctx.clip, ctx.marks, ctx.duration_s);
  else renderClip($("clip"), state.observation.clip, null, null);
}

function render() {
  $("phase").textContent = part === "phase1" ? "· phase 1 of 2" : part === "phase2" ? "· phase 2 of 2" : "· done";
  $("instructions").textContent = state.instructions;
  const ctx = state.context;
  $("media-title").textContent = ctx ? "Context around the step (phase 2)" : "Observation (what a model sees)";
  renderMedia();
  renderTexts();
  renderCriteria();
  $("submit").textContent = part === "phase1" ? "Submit phase 1 and open phase 2 (Enter)" : "Submit phase 2 and go to the next item (Enter)";
  $("submit").hidden = part === "done";
  $("done").hidden = part !== "done";
}

function clipOf(s) {
  return s.context ? s.context.clip : s.observation.clip;
}

function adopt(next) {
  state = next;
  part = next.phase;
  const draft = (next.draft || {})[part];
  answers = part === "done" ? {} : JSON.parse(JSON.stringify((draft && draft.criteria) || {}));
  focus = 0;
  render();
}

function choose(label) {
  const c = current()[focus];
  if (!c) return;
  const old = answers[c.id] || {};
  answers[c.id] = { ...old, label, error_types: label === "invalid" ? old.error_types || [] : [] };
  renderCriteria();
  item.changed();
}

function toggleType(code) {
  const c = current()[focus];
  if (!c || (answers[c.id] || {}).label !== "invalid") return;
  const types = new Set(answers[c.id].error_types || []);
  if (types.has(code)) types.delete(code); else types.add(code);
  answers[c.id] = { ...answers[c.id], error_types: [...types] };
  renderCriteria();
  item.changed();
}

async function submitPart() {
  if (part === "done") return;
  const missing = current().filter((c) => !(answers[c.id] || {}).label).map((c) => c.id);
  if (missing.length) {
    item.status(`Answer ${missing.join(", ")} first.`, "error");
    focus = current().findIndex((c) => c.id === missing[0]);
    markFocus();
    return;
  }
  const next = await item.submit({ part, payload: { criteria: answers } });
  if (!next) return;
  if (next.phase === "done") {
    item.status("Submitted. Opening the next item…");
    await item.goNext();
  } else {
    item.status("Phase 1 submitted and locked. Phase 2: the context and the next step.");
  }
}

function onKey(name, event) {
  if (part === "done") return;
  const count = current().length;
  switch (name) {
    case "v": choose("valid"); break;
    case "i": choose("invalid"); break;
    case "u": choose("uncertain"); break;
    case "j": case "ArrowDown": focus = Math.min(count - 1, focus + 1); markFocus(); break;
    case "k": case "ArrowUp": focus = Math.max(0, focus - 1); markFocus(); break;
    case "Enter": submitPart(); break;
    case "c": {
      const node = root.querySelectorAll(".criterion:not(.locked) textarea")[focus];
      if (node) node.focus();
      break;
    }
    case "Space": {
      const video = root.querySelector("video");
      if (video) { if (video.paused) video.play().catch(() => {}); else video.pause(); }
      break;
    }
    default:
      if (/^[1-9]$/.test(name)) {
        const type = state.error_types[Number(name) - 1];
        if (type) toggleType(type.code);
      } else {
        return;
      }
  }
  event.preventDefault();
}

// The help overlay is built from the one table above (docs/audit.md lists the same keys).
const item = campaignItem(root, {
  draft: () => ({ part, payload: { criteria: answers } }),
  done: (s) => s.phase === "done",
  stage: (s) => s.phase,
  adopt,
  // Only the clip changes: the criteria (and a comment being typed) keep their focus.
  update: (next, prev) => {
    state = next;
    if (clipOf(prev).status !== clipOf(next).status) renderMedia();
  },
  preparing: (s) => clipOf(s).status === "preparing",
  bindings: AUDIT_BINDINGS,
  onKey,
});
$("submit").addEventListener("click", submitPart);
item.refresh();

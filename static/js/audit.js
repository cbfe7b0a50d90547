// The blind audit item page: renders the server's blind state (textContent only), keeps the
// reviewer's answers as an autosaved draft, and runs on the key scheme of every review page
// (campaign-item.js, review-keys.js): each criterion of the open phase is a question, and a key
// typed into a comment is only typed.
import { campaignItem, el } from "./campaign-item.js";

const LABELS = [["valid", "Valid", "v"], ["invalid", "Invalid", "i"], ["uncertain", "Uncertain", "u"]];
const root = document.getElementById("audit");
const $ = (role) => root.querySelector(`[data-role=${role}]`);

let state = null;
let part = "phase1";
let answers = {}; // criterion id -> {label, comment, error_types}

function current() {
  return state.criteria.filter((c) => c.phase === (part === "phase1" ? 1 : 2));
}

// The error types offered for a criterion: those that belong to it, and those that belong to
// none in particular ("other", a campaign's own).
function typesOf(c) {
  return state.error_types.filter((t) => !t.criteria.length || t.criteria.includes(c.id));
}

function renderClip(box, clip, marks, duration) {
  const shown = box.querySelector("video");
  if (clip.status === "ready") {
    if (!shown || shown.dataset.kind !== part) {
      // Space plays it; Tab goes from question to question, not through the player's controls.
      const video = el("video", { controls: "", loop: "", muted: "", playsinline: "", preload: "auto", tabindex: "-1" });
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

function criterionNode(c, index) {
  const li = el("li", { class: "criterion", "data-criterion": c.id, "data-question": "", tabindex: "0", "aria-label": `${c.id} ${c.name}` });
  const answer = answers[c.id] || {};
  const head = el("div", { class: "criterion-head" });
  head.append(el("strong", {}, `${c.id} ${c.name}`), el("span", { class: "muted requirement" }, c.requirement));
  const choices = el("div", { class: "choices", role: "group", "aria-label": `${c.id} answer` });
  for (const [value, text, key] of LABELS) {
    const b = el("button", { type: "button", tabindex: "-1", class: `choice choice-${value}`, "data-label": value, "aria-pressed": String(answer.label === value) }, `${text} (${key})`);
    b.addEventListener("click", () => { item.focusQuestion(index, { focus: false }); choose(value, { seen: true }); });
    choices.append(b);
  }
  li.append(head, choices);
  if (answer.label === "invalid") {
    const types = el("fieldset", { class: "types" });
    types.append(el("legend", {}, "Error types"));
    typesOf(c).forEach((t, n) => {
      const label = el("label");
      const box = el("input", { type: "checkbox", tabindex: "-1", value: t.code });
      box.checked = (answer.error_types || []).includes(t.code);
      box.addEventListener("change", () => { item.focusQuestion(index, { focus: false }); toggleType(t.code); });
      label.append(box, ` ${n < 9 ? `${n + 1} · ` : ""}${t.name}`);
      types.append(label);
    });
    li.append(types);
  }
  const comment = el("textarea", { rows: "2", tabindex: "-1", placeholder: "Comment (optional, c)", "aria-label": `${c.id} comment` });
  comment.value = answer.comment || "";
  comment.addEventListener("input", () => {
    answers[c.id] = { ...(answers[c.id] || {}), comment: comment.value };
    item.changed();
  });
  li.append(comment);
  return li;
}

// A submitted phase, read-only and compact: its answers in one line per criterion.
function lockedNode(c) {
  const phase = c.phase === 1 ? "phase1" : "phase2";
  const answer = ((state.answers[phase] || {}).criteria || {})[c.id] || {};
  const li = el("li", { class: "criterion locked", "data-criterion": c.id });
  const label = LABELS.find(([value]) => value === answer.label);
  li.append(el("strong", {}, `${c.id} ${c.name}: `), el("span", { class: `label-${answer.label || "none"}` }, label ? label[1] : "—"));
  if (answer.comment) li.append(el("span", { class: "muted" }, ` · ${answer.comment}`));
  return li;
}

function renderCriteria() {
  const open = part === "done" ? [] : current().map((c, n) => criterionNode(c, n));
  const locked = state.criteria.filter((c) => (part === "phase2" ? c.phase === 1 : part === "done")).map(lockedNode);
  $("criteria").replaceChildren(...open);
  $("locked").replaceChildren(...locked);
  $("locked-title").hidden = !locked.length;
  $("locked-title").textContent = part === "done" ? "Your answers (submitted)" : "Phase 1 (submitted and locked)";
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
  $("criteria-title").textContent = part === "phase2" ? "Phase 2 criteria (the context and the next step)" : "Criteria";
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
  render();
  // A new phase opens at the top of the page on its first criterion, in view (phase 2's
  // question is never below the fold when it opens).
  if (part !== "done") {
    window.scrollTo({ top: 0 });
    item.focusQuestion(0);
  }
}

function choose(label, { seen = false } = {}) {
  const c = current()[item.index];
  if (!c || (!seen && !item.seen())) return;
  const old = answers[c.id] || {};
  answers[c.id] = { ...old, label, error_types: label === "invalid" ? old.error_types || [] : [] };
  renderCriteria();
  item.mark();
  item.changed();
}

function toggleType(code) {
  const c = current()[item.index];
  if (!c || (answers[c.id] || {}).label !== "invalid") return;
  const types = new Set(answers[c.id].error_types || []);
  if (types.has(code)) types.delete(code); else types.add(code);
  answers[c.id] = { ...answers[c.id], error_types: [...types] };
  renderCriteria();
  item.mark();
  item.changed();
}

async function submitPart() {
  if (part === "done") return;
  const missing = current().filter((c) => !(answers[c.id] || {}).label).map((c) => c.id);
  if (missing.length) {
    item.status(`Answer ${missing.join(", ")} first.`, "error");
    item.focusQuestion(current().findIndex((c) => c.id === missing[0]));
    return;
  }
  const next = await item.submit({ part, payload: { criteria: answers } });
  if (next && next.phase === "phase2") {
    item.status("Phase 1 submitted and locked. Phase 2: the context and the next step.");
  }
}

function onKey(name, event) {
  switch (name) {
    case "v": choose("valid"); break;
    case "i": choose("invalid"); break;
    case "u": choose("uncertain"); break;
    case "Enter": submitPart(); break;
    case "c": {
      const node = root.querySelectorAll("[data-question] textarea")[item.index];
      if (node && item.seen()) node.focus();
      break;
    }
    case "Space": {
      const video = root.querySelector("video");
      if (video) { if (video.paused) video.play().catch(() => {}); else video.pause(); }
      break;
    }
    default:
      if (/^[1-9]$/.test(name)) {
        const c = current()[item.index];
        const type = c && typesOf(c)[Number(name) - 1];
        if (type && item.seen()) toggleType(type.code);
      } else {
        return;
      }
  }
  event.preventDefault();
}

// The server names a bad answer by its criterion (C4): the page by the criterion's name.
function label(field) {
  const c = state && state.criteria.find((x) => x.id === field);
  return c ? `${c.id} ${c.name}` : field;
}

const item = campaignItem(root, {
  kind: "audit",
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
  label,
  question: (field) => (state ? current().findIndex((c) => c.id === field) : -1),
  onKey,
});
$("submit").addEventListener("click", submitPart);
item.refresh();

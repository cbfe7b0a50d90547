// The blind boundary item page: the step's windows in the reviewer's own order, each ruled
// Valid / Invalid / Uncertain against its definition. Renders the server's blind state with
// textContent only, autosaves a draft, and runs from the keyboard under the workspace's focus
// rule (keys.js): a key typed into a comment is only typed.
import { campaignItem, el } from "./campaign-item.js";

export const BOUNDARY_BINDINGS = [
  ["Answer", [
    [["v"], "Valid for the focused window", "valid"],
    [["i"], "Invalid for the focused window", "invalid"],
    [["u"], "Uncertain for the focused window", "uncertain"],
    [["c"], "write a comment on the focused window", "comment"],
    [["Escape"], "leave the comment, close the help", "escape"],
  ]],
  ["Move", [
    [["j", "ArrowDown"], "next window", "down"],
    [["k", "ArrowUp"], "previous window", "up"],
    [["Space"], "play / pause the focused window's clip", "play"],
    [["Enter"], "submit the item and open the next one", "submit"],
    [["?"], "this help", "help"],
  ]],
];

const LABELS = [["valid", "Valid", "v"], ["invalid", "Invalid", "i"], ["uncertain", "Uncertain", "u"]];
const root = document.getElementById("boundary");
const $ = (role) => root.querySelector(`[data-role=${role}]`);

let state = null;
let answers = {}; // window name -> {label, comment}
let focus = 0;

function ruled() {
  return state.windows.filter((w) => w.available);
}

function clipNode(w) {
  if (w.clip.status === "ready") {
    const video = el("video", { controls: "", loop: "", muted: "", playsinline: "", preload: "auto" });
    video.src = w.clip.url;
    return video;
  }
  const text = !w.available ? w.reason
    : w.clip.status === "preparing" ? "Preparing the clip…"
    : w.clip.status === "failed" ? "The clip could not be prepared; tell an admin."
    : "No clip for this item on this server.";
  return el("p", { class: "muted" }, text);
}

function windowNode(w, index) {
  const locked = state.phase === "done";
  const source = locked ? ((state.answers || {}).windows || {}) : answers;
  const answer = source[w.name] || {};
  const li = el("li", { class: "criterion window", "data-window": w.name });
  if (!locked && index === focus) li.classList.add("focused");
  if (locked || !w.available) li.classList.add("locked");
  const head = el("div", { class: "criterion-head" });
  const length = w.duration_s ? ` · ${w.duration_s.toFixed(2)} s` : "";
  head.append(el("strong", {}, `${w.position}. ${w.label}${length}`), el("span", { class: "muted requirement" }, w.requirement));
  li.append(head, el("div", { class: "clip" }));
  li.querySelector(".clip").append(clipNode(w));
  if (!w.available) return li;
  const choices = el("div", { class: "choices", role: "group", "aria-label": `${w.label} answer` });
  for (const [value, text, key] of LABELS) {
    const b = el("button", { type: "button", class: `choice choice-${value}`, "data-label": value, "aria-pressed": String(answer.label === value) }, `${text} (${key})`);
    if (locked) b.disabled = true;
    b.addEventListener("click", () => { focus = index; choose(value); });
    choices.append(b);
  }
  const comment = el("textarea", { rows: "2", placeholder: "Comment (optional)", "aria-label": `${w.label} comment` });
  comment.value = answer.comment || "";
  comment.disabled = locked;
  comment.addEventListener("input", () => {
    answers[w.name] = { ...(answers[w.name] || {}), comment: comment.value };
    item.changed();
  });
  comment.addEventListener("focus", () => { if (!locked) { focus = index; markFocus(); } });
  li.append(choices, comment);
  return li;
}

function renderWindows() {
  const nodes = [];
  let index = 0;
  for (const w of state.windows) nodes.push(windowNode(w, w.available ? index++ : -1));
  $("windows").replaceChildren(...nodes);
}

// A clip that became ready replaces only its own box: a comment being typed keeps its focus.
function updateClips() {
  for (const w of state.windows) {
    const box = root.querySelector(`.window[data-window="${w.name}"] .clip`);
    const shown = box && box.querySelector("video");
    if (box && !(shown && w.clip.status === "ready")) box.replaceChildren(clipNode(w));
  }
}

function updateChoices() {
  // Only the buttons change when a label is chosen: the clips keep playing.
  for (const li of root.querySelectorAll(".window")) {
    const answer = answers[li.dataset.window] || {};
    li.querySelectorAll(".choice").forEach((b) => b.setAttribute("aria-pressed", String(answer.label === b.dataset.label)));
  }
}

function markFocus() {
  const nodes = root.querySelectorAll(".window:not(.locked)");
  nodes.forEach((li, n) => li.classList.toggle("focused", n === focus));
  if (nodes[focus]) nodes[focus].scrollIntoView({ block: "nearest" });
}

function render() {
  $("phase").textContent = state.phase === "done" ? "· done" : `· ${ruled().length} windows`;
  $("instructions").textContent = state.instructions;
  $("local").textContent = state.step.local_intent;
  $("next").textContent = state.step.next_step;
  renderWindows();
  $("submit").hidden = state.phase === "done";
  $("done").hidden = state.phase !== "done";
}

function adopt(next) {
  state = next;
  answers = state.phase === "done" ? {} : JSON.parse(JSON.stringify((next.draft && next.draft.windows) || {}));
  focus = 0;
  render();
}

function choose(label) {
  const w = ruled()[focus];
  if (!w) return;
  answers[w.name] = { ...(answers[w.name] || {}), label };
  updateChoices();
  item.changed();
}

async function submitItem() {
  if (state.phase === "done") return;
  const missing = ruled().filter((w) => !(answers[w.name] || {}).label);
  if (missing.length) {
    item.status(`Rule ${missing.map((w) => w.label).join(", ")} first.`, "error");
    focus = ruled().indexOf(missing[0]);
    markFocus();
    return;
  }
  if (await item.submit({ payload: { windows: answers } })) {
    item.status("Submitted. Opening the next item…");
    await item.goNext();
  }
}

function onKey(name, event) {
  if (state.phase === "done") return;
  const count = ruled().length;
  switch (name) {
    case "v": choose("valid"); break;
    case "i": choose("invalid"); break;
    case "u": choose("uncertain"); break;
    case "j": case "ArrowDown": focus = Math.min(count - 1, focus + 1); markFocus(); break;
    case "k": case "ArrowUp": focus = Math.max(0, focus - 1); markFocus(); break;
    case "Enter": submitItem(); break;
    case "c": {
      const node = root.querySelectorAll(".window:not(.locked) textarea")[focus];
      if (node) node.focus();
      break;
    }
    case "Space": {
      const node = root.querySelectorAll(".window:not(.locked)")[focus];
      const video = node && node.querySelector("video");
      if (video) { if (video.paused) video.play().catch(() => {}); else video.pause(); }
      break;
    }
    default:
      return;
  }
  event.preventDefault();
}

// The help overlay is built from the one table above (docs/boundary-audit.md lists the same keys).
const item = campaignItem(root, {
  draft: () => ({ payload: { windows: answers } }),
  done: (s) => s.phase === "done",
  stage: (s) => s.phase,
  adopt,
  update: (next, prev) => {
    state = next;
    if (next.windows.some((w, n) => w.clip.status !== prev.windows[n].clip.status)) updateClips();
  },
  preparing: (s) => s.windows.some((w) => w.clip.status === "preparing"),
  bindings: BOUNDARY_BINDINGS,
  onKey,
});
$("submit").addEventListener("click", submitItem);
item.refresh();

// The blind boundary item page: the step's windows in the reviewer's own order, each ruled
// Valid / Invalid / Uncertain against its definition. The windows sit two to a row, so two can be
// compared side by side and played together (every window starts at the step's start, so their
// clips line up from their first frame); one timeline above them marks where each window ends.
// Renders the server's blind state with textContent only, autosaves a draft, and runs on the key
// scheme of every review page (campaign-item.js, review-keys.js): each window is a question.
import { campaignItem, el } from "./campaign-item.js";

const LABELS = [["valid", "Valid", "v"], ["invalid", "Invalid", "i"], ["uncertain", "Uncertain", "u"]];
const root = document.getElementById("boundary");
const $ = (role) => root.querySelector(`[data-role=${role}]`);

let state = null;
let answers = {}; // window name -> {label, comment}
let together = null; // the pair playing together: {videos, frame}

function ruled() {
  return state.windows.filter((w) => w.available);
}

function clipNode(w) {
  if (w.clip.status === "ready") {
    const video = el("video", { controls: "", loop: "", muted: "", playsinline: "", preload: "auto", tabindex: "-1" });
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
  if (!locked && w.available) {
    li.dataset.question = "";
    li.tabIndex = 0;
    li.setAttribute("aria-label", `${w.position}. ${w.label}`);
  } else {
    li.classList.add("locked");
  }
  const head = el("div", { class: "criterion-head" });
  const length = w.duration_s ? ` · ${w.duration_s.toFixed(2)} s` : "";
  head.append(el("strong", {}, `${w.position}. ${w.label}${length}`), el("span", { class: "muted requirement" }, w.requirement));
  li.append(head, el("div", { class: "clip" }));
  li.querySelector(".clip").append(clipNode(w));
  if (!w.available) return li;
  const choices = el("div", { class: "choices", role: "group", "aria-label": `${w.label} answer` });
  for (const [value, text, key] of LABELS) {
    const b = el("button", { type: "button", tabindex: "-1", class: `choice choice-${value}`, "data-label": value, "aria-pressed": String(answer.label === value) }, `${text} (${key})`);
    if (locked) b.disabled = true;
    b.addEventListener("click", () => { item.focusQuestion(index, { focus: false }); choose(value, { seen: true }); });
    choices.append(b);
  }
  const pair = el("button", { type: "button", tabindex: "-1", class: "play-pair" }, "Play with the one beside it (p)");
  pair.addEventListener("click", () => { item.focusQuestion(index, { focus: false }); playPair(); });
  choices.append(pair);
  const comment = el("textarea", { rows: "2", tabindex: "-1", placeholder: "Comment (optional, c)", "aria-label": `${w.label} comment` });
  comment.value = answer.comment || "";
  comment.disabled = locked;
  comment.addEventListener("input", () => {
    answers[w.name] = { ...(answers[w.name] || {}), comment: comment.value };
    item.changed();
  });
  li.append(choices, comment);
  return li;
}

function renderWindows() {
  const nodes = [];
  let index = 0;
  for (const w of state.windows) nodes.push(windowNode(w, w.available ? index++ : -1));
  $("windows").replaceChildren(...nodes);
}

// One timeline for every window: each a bar from the step's start to its own end, with the end
// marked and labelled; a playhead while two windows play together.
function renderTimeline() {
  const windows = ruled();
  const box = $("timeline");
  if (!windows.length) { box.hidden = true; return; }
  box.hidden = false;
  const span = Math.max(...windows.map((w) => w.to_s));
  const rows = state.windows.filter((w) => w.available).map((w) => {
    const row = el("div", { class: "tl-row", "data-window": w.name });
    row.append(el("span", { class: "tl-name" }, `${w.position}. ${w.label}`));
    const lane = el("span", { class: "tl-lane" });
    const bar = el("span", { class: "tl-window", title: `${w.label}: ${w.from_s.toFixed(2)}–${w.to_s.toFixed(2)} s from the step's start` });
    bar.style.left = `${(100 * w.from_s) / span}%`;
    bar.style.width = `${(100 * (w.to_s - w.from_s)) / span}%`;
    bar.append(el("span", { class: "tl-end" }, `${w.to_s.toFixed(2)} s`));
    lane.append(bar);
    row.append(lane);
    return row;
  });
  const head = el("span", { class: "tl-head", "data-role": "playhead" });
  const lanes = el("div", { class: "tl-rows" });
  lanes.append(...rows, head);
  box.replaceChildren(lanes, el("p", { class: "muted" }, "Every window starts at the step's start; the bars end where each window ends."));
  box.dataset.span = String(span);
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

function render() {
  const count = ruled().length;
  $("phase").textContent = state.phase === "done" ? "· done" : `· ${count} ${count === 1 ? "window" : "windows"}`;
  $("instructions").textContent = state.instructions;
  $("local").textContent = state.step.local_intent;
  $("next").textContent = state.step.next_step;
  renderWindows();
  renderTimeline();
  $("submit").hidden = state.phase === "done";
  $("done").hidden = state.phase !== "done";
}

function adopt(next) {
  state = next;
  answers = state.phase === "done" ? {} : JSON.parse(JSON.stringify((next.draft && next.draft.windows) || {}));
  render();
  if (state.phase !== "done") item.focusQuestion(0);
}

function choose(label, { seen = false } = {}) {
  const w = ruled()[item.index];
  if (!w || (!seen && !item.seen())) return;
  answers[w.name] = { ...(answers[w.name] || {}), label };
  updateChoices();
  item.changed();
}

// --- playing ---------------------------------------------------------------------------------

function currentNode() {
  return root.querySelectorAll(".window[data-question]")[item.index] || null;
}

function stopTogether() {
  if (!together) return;
  cancelAnimationFrame(together.frame);
  for (const v of together.videos) { v.pause(); v.loop = true; }
  root.querySelectorAll(".window.playing").forEach((n) => n.classList.remove("playing"));
  $("playhead").style.display = "none";
  together = null;
}

// The window beside the current one in its row of two (or none).
function partnerOf(node) {
  const all = [...root.querySelectorAll(".window")];
  const n = all.indexOf(node);
  const other = all[n % 2 === 0 ? n + 1 : n - 1];
  return other && other.querySelector("video") ? other : null;
}

// Both clips from their first frame at the same moment: a window's time 0 is the step's start
// for every window, so the two stay in step; the shorter one stops at its own end.
async function playPair() {
  stopTogether();
  const node = currentNode();
  if (!node || !node.querySelector("video")) { item.status("This window's clip is not ready yet."); return; }
  const nodes = [node, partnerOf(node)].filter(Boolean);
  const videos = nodes.map((n) => n.querySelector("video"));
  for (const v of videos) { v.pause(); v.loop = false; }
  await Promise.all(videos.map((v) => new Promise((resolve) => {
    if (v.readyState >= 2 && v.currentTime === 0) { resolve(); return; }
    v.addEventListener("seeked", resolve, { once: true });
    v.currentTime = 0;
  })));
  nodes.forEach((n) => n.classList.add("playing"));
  together = { videos, frame: 0 };
  const head = $("playhead");
  const span = Number($("timeline").dataset.span) || 1;
  head.style.display = "block";
  const tick = () => {
    if (!together) return;
    const [lead, ...rest] = videos;
    // Keep the second one on the first's time while both play (a clip may stall on a slow disk).
    for (const v of rest) if (!v.paused && !lead.paused && Math.abs(v.currentTime - lead.currentTime) > 0.08) v.currentTime = lead.currentTime;
    const t = Math.max(...videos.map((v) => v.currentTime));
    head.style.left = `calc(var(--tl-name) + (100% - var(--tl-name) - 3.5rem) * ${Math.min(1, t / span)})`;
    if (videos.every((v) => v.paused || v.ended)) { stopTogether(); return; }
    together.frame = requestAnimationFrame(tick);
  };
  await Promise.all(videos.map((v) => v.play().catch(() => {})));
  const names = nodes.map((n) => n.querySelector("strong").textContent.split(" · ")[0]);
  item.status(`Playing ${names.join(" and ")} together.`);
  together.frame = requestAnimationFrame(tick);
}

function toggleCurrent() {
  const node = currentNode();
  const video = node && node.querySelector("video");
  if (!video) return;
  if (together && together.videos.includes(video)) { stopTogether(); return; }
  if (video.paused) video.play().catch(() => {}); else video.pause();
}

// --- submit, keys ----------------------------------------------------------------------------

async function submitItem() {
  if (state.phase === "done") return;
  const missing = ruled().filter((w) => !(answers[w.name] || {}).label);
  if (missing.length) {
    item.status(`Rule ${missing.map((w) => w.label).join(", ")} first.`, "error");
    item.focusQuestion(ruled().indexOf(missing[0]));
    return;
  }
  stopTogether();
  await item.submit({ payload: { windows: answers } });
}

function onKey(name, event) {
  switch (name) {
    case "v": choose("valid"); break;
    case "i": choose("invalid"); break;
    case "u": choose("uncertain"); break;
    case "Enter": submitItem(); break;
    case "c": {
      const node = currentNode();
      const box = node && node.querySelector("textarea");
      if (box && item.seen()) box.focus();
      break;
    }
    case "Space": toggleCurrent(); break;
    case "p": playPair(); break;
    default:
      return;
  }
  event.preventDefault();
}

function label(field) {
  const w = state && state.windows.find((x) => x.name === field);
  return w ? `${w.position}. ${w.label}` : field;
}

const item = campaignItem(root, {
  kind: "boundary",
  draft: () => ({ payload: { windows: answers } }),
  done: (s) => s.phase === "done",
  stage: (s) => s.phase,
  adopt,
  update: (next, prev) => {
    state = next;
    if (next.windows.some((w, n) => w.clip.status !== prev.windows[n].clip.status)) updateClips();
  },
  preparing: (s) => s.windows.some((w) => w.clip.status === "preparing"),
  label,
  question: (field) => (state ? ruled().findIndex((w) => w.name === field) : -1),
  onKey,
});
$("submit").addEventListener("click", submitItem);
item.refresh();

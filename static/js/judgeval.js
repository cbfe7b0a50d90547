// The blind rating page: renders the server's blind state (textContent only), autosaves the
// scores as a draft, and works from the keyboard alone: the scores are the page's questions,
// digits type one, Tab moves to the next, Enter submits (the first triplet opens the second; the
// second goes to the next item), "?" shows the keys of every review page (review-keys.js).
import { campaignItem } from "./campaign-item.js";

const DIMENSIONS = ["local", "procedural", "next"];

const root = document.getElementById("judgeval");
const $ = (role) => root.querySelector(`[data-role=${role}]`);
const form = $("form");

let state = null;

function values() {
  const payload = {};
  for (const dim of DIMENSIONS) {
    const raw = form.elements[dim].value.trim();
    if (raw !== "") payload[dim] = /^\d+$/.test(raw) ? Number(raw) : raw;
  }
  payload.reason = form.elements.reason.value;
  return payload;
}

function render() {
  $("instructions").textContent = state.instructions || "";
  $("position").textContent = state.part === "done" ? "· done" : `· prediction ${state.position} of ${state.of}`;
  $("ref-local").textContent = state.reference.local;
  $("ref-procedural").textContent = state.reference.procedural;
  $("ref-next").textContent = state.reference.next;
  const list = document.createElement("ul");
  for (const item of state.reference.plausible_next) {
    const li = document.createElement("li");
    li.textContent = item;
    list.append(li);
  }
  if (!state.reference.plausible_next.length) {
    const none = document.createElement("li");
    none.className = "muted";
    none.textContent = "none recorded";
    list.append(none);
  }
  $("ref-plausible").replaceChildren(list);
  const prediction = state.prediction || { local: "", procedural: "", next: "" };
  $("pred-local").textContent = prediction.local;
  $("pred-procedural").textContent = prediction.procedural;
  $("pred-next").textContent = prediction.next;
  const select = $("reasons");
  if (select.options.length === 1) {
    for (const reason of state.reasons) {
      const option = document.createElement("option");
      option.value = reason.code;
      option.textContent = reason.name;
      select.append(option);
    }
  }
  const done = state.part === "done";
  form.hidden = done;
  $("done").hidden = !done;
  if (done) {
    $("next-link").focus();
    return;
  }
  const draft = state.draft[state.part] || {};
  for (const dim of DIMENSIONS) form.elements[dim].value = draft[dim] ?? "";
  form.elements.reason.value = draft.reason || "";
  form.elements.local.focus();
}

async function submitPart(event) {
  if (event) event.preventDefault();
  if (!state || state.part === "done") return;
  const next = await item.submit({ part: state.part, payload: values() });
  if (next && next.part !== "done") item.status("Submitted: now the second prediction of this step.", "ok");
}

const LABELS = { local: "Local intent", procedural: "Procedural intent", next: "Next step", reason: "Reason" };

const item = campaignItem(root, {
  kind: "judge_validation",
  // A number field takes neither "?" nor a letter: the help and j / k work from the scores too
  // (the arrows stay the field's own: they step the number).
  anywhere: ["?", "j", "k"],
  label: (field) => LABELS[field] || field,
  question: (field) => DIMENSIONS.indexOf(field),
  draft: () => ({ part: state.part, payload: values() }),
  done: (s) => s.part === "done",
  stage: (s) => s.part,
  adopt: (next) => { state = next; render(); },
  update: (next) => { state = next; },
});
form.addEventListener("submit", submitPart);
form.addEventListener("input", item.changed);
form.addEventListener("keydown", (event) => {
  // Enter submits from any field, the reason list included.
  if (event.key === "Enter" && !event.isComposing) submitPart(event);
});
item.refresh();

// The blind rating page: renders the server's blind state (textContent only), autosaves the
// scores as a draft, and works from the keyboard alone: digits type a score, Tab moves to the
// next one, Enter submits (the first triplet opens the second; the second goes to the next item).
import { api, ApiError, request } from "./api.js";

const SAVE_DELAY_MS = 400;
const RENEW_MS = 60000;
const DIMENSIONS = ["local", "procedural", "next"];

const root = document.getElementById("judgeval");
const $ = (role) => root.querySelector(`[data-role=${role}]`);
const urls = root.dataset;
const form = $("form");

let state = null;
let saveTimer = null;
let busy = false;

function status(text, kind = "") {
  const box = $("status");
  box.textContent = text;
  box.className = `status ${kind}`;
}

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
  $("position").textContent = state.part === "done" ? "done" : `${state.position} of ${state.of}`;
  $("ref-local").textContent = state.reference.local;
  $("ref-procedural").textContent = state.reference.procedural;
  $("ref-next").textContent = state.reference.next;
  const list = document.createElement("ul");
  for (const item of state.reference.plausible_next) {
    const li = document.createElement("li");
    li.textContent = item;
    list.append(li);
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

async function load() {
  state = await api.get(urls.stateUrl);
  render();
}

function scheduleSave() {
  clearTimeout(saveTimer);
  saveTimer = setTimeout(saveDraft, SAVE_DELAY_MS);
}

async function saveDraft() {
  if (!state || state.part === "done") return;
  try {
    const result = await request("PUT", urls.draftUrl, { part: state.part, payload: values() });
    status(result.lease_held ? "Draft saved" : "Draft saved; your claim ended, claim again", "");
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) return; // shown on submit
    status("Not saved yet (offline?); keep typing, it will be retried", "warn");
  }
}

async function submitPart(event) {
  if (event) event.preventDefault();
  if (busy || !state || state.part === "done") return;
  busy = true;
  clearTimeout(saveTimer);
  try {
    state = await api.post(urls.submitUrl, { part: state.part, payload: values() });
    status("Submitted", "ok");
    render();
    if (state.part === "done") window.location.assign(urls.nextUrl);
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) {
      const problems = Object.entries(error.body).map(([k, v]) => `${k}: ${[].concat(v).join(" ")}`);
      status(problems.join(" · "), "error");
      const first = DIMENSIONS.find((d) => error.body[d]);
      if (first) form.elements[first].focus();
    } else {
      status(error.message || "Could not submit", "error");
    }
  } finally {
    busy = false;
  }
}

form.addEventListener("submit", submitPart);
form.addEventListener("input", scheduleSave);
form.addEventListener("keydown", (event) => {
  // Enter submits from any field, the reason list included.
  if (event.key === "Enter" && !event.isComposing) submitPart(event);
});
setInterval(() => api.post(urls.renewUrl).catch(() => {}), RENEW_MS);
load().catch((error) => status(error.message || "Could not load the item", "error"));

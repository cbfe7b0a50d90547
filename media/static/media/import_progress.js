// Polls an upload's import (probed on a media worker) and shows its state, its progress, the
// reason when it was refused, and a link to the video once it is imported. Stops when finished.
"use strict";

const box = document.getElementById("import-progress");
const POLL_MS = 1000;
const STATES = {
  pending: "waiting for a media worker",
  probing: "reading the video",
  done: "imported",
  failed: "refused",
};

function render(state) {
  box.querySelector("progress").value = state.progress;
  const attempt = state.attempts > 1 ? ` (attempt ${state.attempts})` : "";
  const share = state.status === "probing" ? ` — ${Math.round(state.progress * 100)} %` : "";
  box.querySelector("[data-role=state]").textContent = `${STATES[state.status] || state.status}${share}${attempt}`;
  const error = box.querySelector("[data-role=error]");
  error.textContent = state.error;
  error.hidden = !state.error;
  const done = box.querySelector("[data-role=done]");
  if (state.video_url) done.querySelector("a").href = state.video_url;
  done.hidden = !state.video_url;
}

async function poll() {
  try {
    const response = await fetch(box.dataset.url, { credentials: "same-origin" });
    if (!response.ok) return;
    const state = await response.json();
    render(state);
    if (!state.finished) setTimeout(poll, POLL_MS);
  } catch {
    setTimeout(poll, POLL_MS * 2);
  }
}

if (box) poll();

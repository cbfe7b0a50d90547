// Polls the run's progress fragment (server-rendered, escaped HTML) and swaps it in place.
// Stops once the run is no longer running, so a finished page makes no more requests.
"use strict";

const POLL_MS = 2000;

async function poll(box) {
  const url = box.dataset.poll;
  if (!url) return;
  try {
    const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } });
    if (!response.ok) return setTimeout(() => poll(box), POLL_MS * 2);
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html").getElementById("run-progress");
    if (!fresh) return;
    box.replaceWith(fresh);
    if (fresh.dataset.poll) setTimeout(() => poll(fresh), POLL_MS);
    else if (fresh.dataset.status !== "running") location.reload();  // items and scores changed
  } catch {
    setTimeout(() => poll(box), POLL_MS * 2);
  }
}

const box = document.getElementById("run-progress");
if (box) setTimeout(() => poll(box), POLL_MS);

// Polls a render batch's progress and updates the bar, the counts and the failure list.
// Stops once every item is done, so a finished page makes no more requests.
"use strict";

const box = document.getElementById("batch-progress");
const POLL_MS = 2000;

function render(progress) {
  const bar = box.querySelector("progress");
  bar.max = progress.total || 1;
  bar.value = progress.done;
  box.querySelector("[data-role=counts]").textContent =
    `${progress.done} / ${progress.total} done, ${progress.ready} ready, ${progress.failed} failed`;
  const list = box.querySelector("[data-role=failures]");
  list.replaceChildren(
    ...progress.failures.map((f) => {
      const item = document.createElement("li");
      item.textContent = `${f.name || f.subject} / ${f.condition} / ${f.profile}: ${f.reason}`;
      return item;
    }),
  );
}

async function poll() {
  try {
    const response = await fetch(box.dataset.url, { credentials: "same-origin" });
    if (!response.ok) return;
    const progress = await response.json();
    render(progress);
    if (!progress.finished) setTimeout(poll, POLL_MS);
  } catch {
    setTimeout(poll, POLL_MS * 2);
  }
}

if (box) poll();

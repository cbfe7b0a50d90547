// Live campaign progress: re-fetch the server-rendered fragment every few seconds.
"use strict";

const box = document.getElementById("campaign-progress");
const PERIOD_MS = 4000;

async function refresh() {
  try {
    const response = await fetch(box.dataset.fragmentUrl, { credentials: "same-origin" });
    if (response.ok) {
      // The fragment is escaped by the server's templates.
      box.innerHTML = await response.text();
    }
  } catch {
    // Offline for a moment: keep the last figures and try again.
  }
  setTimeout(refresh, PERIOD_MS);
}

if (box) setTimeout(refresh, PERIOD_MS);

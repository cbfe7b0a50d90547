// The adjudication pages (audit criteria, boundary windows): the server renders the reviewers'
// decisions side by side and the form; this script adds the key scheme of every review page
// (campaign-item.js, review-keys.js): each disagreement is a question, v / i decide it, c writes
// the comment, Enter saves and opens the next disagreement. It shows how far the queue is and the
// time spent, and swaps each clip in once it is prepared (the page asks for it again until then).
import { api } from "./api.js";
import { duration, el, reviewKeys } from "./campaign-item.js";

const POLL_MS = 2000;
const root = document.getElementById("adjudicate");
const $ = (role) => root.querySelector(`[data-role=${role}]`);
const form = $("form");
const opened = Date.now();

function status(text, kind = "") {
  const box = $("status");
  box.textContent = text;
  box.className = `status ${kind}`;
}

function current() {
  return keys.questions()[keys.index] || null;
}

function decide(value) {
  const node = current();
  if (!node || !keys.seen()) return;
  const radio = node.querySelector(`input[type=radio][value=${value}]`);
  if (!radio) return;
  radio.checked = true;
  status(`${node.dataset.name}: ${radio.closest("label").textContent.trim()}. Enter saves.`);
}

function clipOf(node) {
  return node ? root.querySelector(`[data-clip-box="${node.dataset.clip}"] video`) : null;
}

function onKey(name, event) {
  switch (name) {
    case "v": decide("valid"); break;
    case "i": decide("invalid"); break;
    case "c": $("comment").focus(); break;
    case "Enter": form.requestSubmit(); break;
    case "Space": {
      const video = clipOf(current());
      if (video) { if (video.paused) video.play().catch(() => {}); else video.pause(); }
      break;
    }
    default:
      return;
  }
  event.preventDefault();
}

const keys = reviewKeys(root, { kind: "adjudication", status, onKey });

function showProgress() {
  const box = $("progress");
  if (!box) return;
  const base = box.dataset.text;
  box.textContent = `${base} · ${duration((Date.now() - opened) / 1000)} on this item`;
}

// A clip still being prepared is asked for again until it is ready (or could not be made).
async function pollClips() {
  const pending = [...root.querySelectorAll("[data-clip-box][data-status=preparing]")];
  if (!pending.length) return;
  try {
    const { clips } = await api.get(root.dataset.clipsUrl);
    for (const box of pending) {
      const clip = clips[box.dataset.clipBox];
      if (!clip || clip.status === "preparing") continue;
      box.dataset.status = clip.status;
      if (clip.status === "ready") {
        const video = el("video", { controls: "", loop: "", muted: "", playsinline: "", preload: "auto", tabindex: "-1" });
        video.src = clip.url;
        box.replaceChildren(video);
      } else {
        box.replaceChildren(el("p", { class: "muted" }, "The clip could not be prepared; tell an admin."));
      }
    }
  } catch (error) {
    status(`Could not ask for the clips: ${error.message}`, "error");
  }
  if (root.querySelector("[data-clip-box][data-status=preparing]")) setTimeout(pollClips, POLL_MS);
}

if (keys.questions().length) keys.focusQuestion(0);
showProgress();
setInterval(showProgress, 1000);
setTimeout(pollClips, POLL_MS);

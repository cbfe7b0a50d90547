// The corrections page's editor: the step on its source video with the workspace's frame-exact
// player (player.js) and timeline (timeline.js). Dragging the cutoff or the outcome, or putting
// one at the frame on screen, writes the frame into the form as "#n" (the server reads it with
// the same parser as anything typed: studio.display.parse_timecode); the form is posted as is.
import { FrameIndex, clock, fetchFrameTimes } from "./frames.js";
import { keyName, takesShortcuts } from "./keys.js";
import { Player } from "./player.js";
import { Timeline } from "./timeline.js";

const config = JSON.parse(document.getElementById("corrections-config").textContent);
const root = document.getElementById("corrections-player");
const form = document.querySelector("[data-role=form]");
const $ = (role) => document.querySelector(`[data-role=${role}]`);
const MARK_FIELDS = { cutoff_us: "cutoff", outcome_us: "outcome" };

// The timeline draws a store's steps: here the one step being corrected.
const entry = { id: 1, local: { ...config.step } };
const store = {
  active: () => [entry],
  get: (id) => (id === entry.id ? entry : null),
  validate: () => ({}),
  isDirty: () => ["cutoff_us", "outcome_us"].some((m) => entry.local[m] !== config.step[m]),
};

function say(text) {
  const line = document.querySelector(".corrections-editor [data-role=say]") || (() => {
    const p = document.createElement("p");
    p.dataset.role = "say";
    p.className = "muted";
    p.setAttribute("aria-live", "polite");
    root.after(p);
    return p;
  })();
  line.textContent = text;
}

// Only the kind's own fields are shown.
function showFields() {
  const kind = $("kind").value;
  for (const p of form.querySelectorAll("[data-for]")) p.hidden = !p.dataset.for.split(" ").includes(kind);
}

async function main() {
  const times = await fetchFrameTimes(config.urls.frameTimes);
  const index = new FrameIndex(times, config.duration_us, config.origin_us || 0);
  const video = $("video");
  const player = new Player(video, index);
  if (config.has_file) video.src = config.urls.source;
  const timeline = new Timeline($("timeline"), { index, store });
  timeline.setCurrent(entry.id);
  timeline.setSelectedMark("cutoff_us");
  // Zoomed on the step with a second of the video on each side.
  const span = (entry.local.end_us - entry.local.start_us) / 1e6 + 2;
  timeline.setZoom(($("timeline").clientWidth - 4) / span);
  timeline.reveal(Math.max(entry.local.start_us - 1e6, 0));
  $("timeline").scrollLeft = timeline.x(Math.max(entry.local.start_us - 1e6, 0));

  // A mark moved to the boundary `us`: the form gets its frame number, the timeline shows it.
  function setMark(mark, us) {
    const field = MARK_FIELDS[mark];
    if (!field) {
      say("An audit correction moves the cutoff (and the outcome) or splits the step; its start and end stay.");
      timeline.render();
      return;
    }
    entry.local[mark] = us;
    if (mark === "cutoff_us" && entry.local.outcome_us < us) entry.local.outcome_us = us;
    $(field).value = `#${index.boundaryIndex(us)}`;
    $("kind").value = "move_cutoff";
    showFields();
    timeline.render();
    const k = index.boundaryIndex(us);
    say(mark === "cutoff_us" ? `New cutoff at #${k} (${clock(us)}): the last frame shown is #${k - 1}.` : `New outcome at #${k} (${clock(us)}).`);
  }

  function readout() {
    const t = index.timeOf(player.frame);
    $("readout").textContent = `#${player.frame} · ${clock(t)}`;
    timeline.setPlayhead(t);
  }

  player.addEventListener("frame", readout);
  timeline.addEventListener("seek", (e) => player.seekFrame(index.frameAt(e.detail.us)));
  timeline.addEventListener("mark", (e) => setMark(e.detail.mark, e.detail.us));
  const actions = {
    back: () => player.step(-1),
    fwd: () => player.step(1),
    back10: () => player.step(-10),
    fwd10: () => player.step(10),
    toggle: () => player.toggle(),
    "play-step": () => player.playRange(index.boundaryIndex(entry.local.start_us), index.boundaryIndex(entry.local.cutoff_us)),
    // The frame on screen is the last one shown: the cutoff is the boundary after it.
    "cutoff-here": () => setMark("cutoff_us", index.after(player.frame)),
    "outcome-here": () => setMark("outcome_us", index.timeOf(player.frame)),
    "split-here": () => {
      $("at").value = `#${player.frame}`;
      $("kind").value = "split_step";
      showFields();
      say(`Split at #${player.frame} (${clock(index.timeOf(player.frame))}): the new step begins with this frame.`);
    },
  };
  for (const button of document.querySelectorAll(".corrections-editor [data-do]")) {
    button.addEventListener("click", () => actions[button.dataset.do]());
  }
  // The player's keys, as in the workspace; never while typing in the form.
  document.addEventListener("keydown", (event) => {
    if (!takesShortcuts(document.activeElement)) return;
    const name = keyName(event);
    const act = { Space: "toggle", ArrowLeft: "back", ArrowRight: "fwd", "Shift+ArrowLeft": "back10", "Shift+ArrowRight": "fwd10" }[name];
    if (!act) return;
    event.preventDefault();
    actions[act]();
  });
  if (config.has_file) {
    await new Promise((resolve) => {
      if (video.readyState >= 1) resolve();
      else video.addEventListener("loadedmetadata", resolve, { once: true });
      video.addEventListener("error", resolve, { once: true });
    });
    index.origin = await player.calibrate(config.origin_us || 0);
    await player.seekFrame(Math.max(index.boundaryIndex(entry.local.cutoff_us) - 1, 0));
  } else {
    say("This video has no file on the server: type the times.");
  }
  readout();
  root.dataset.ready = "true";
}

$("kind").addEventListener("change", showFields);
showFields();
main();

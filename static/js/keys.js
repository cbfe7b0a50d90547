// Keyboard shortcuts. The focus rule every page's shortcuts follow (listenForShortcuts), and the
// workspace's bindings: the help overlay (?) is built from this one table, and
// docs/annotation.md lists the same bindings.

export const BINDINGS = [
  ["Player", [
    [["Space"], "play / pause", "toggle"],
    [["ArrowLeft", "ArrowRight"], "previous / next frame", "frame"],
    [["Shift+ArrowLeft", "Shift+ArrowRight"], "10 frames back / forward", "frame10"],
    [["["], "slower (down to 0.1×)", "slower"],
    [["]"], "faster (up to 4×)", "faster"],
    [["\\"], "normal speed (1×)", "normal"],
    [["l"], "loop the current step on / off", "loop"],
    [["p"], "play the current step up to its cutoff", "play-to-cutoff"],
    [["ArrowUp", "ArrowDown"], "previous / next step", "step"],
    [["Home", "End"], "first / last frame of the current step", "bounds"],
  ]],
  ["Marks (at the frame on screen)", [
    [["s"], "start: this frame is the step's first", "set-start"],
    [["c"], "cutoff: this frame is the last one a model sees", "set-cutoff"],
    [["o"], "outcome: the outcome is visible from this frame", "set-outcome"],
    [["e"], "end: this frame is the step's last", "set-end"],
    [["1", "2", "3", "4"], "choose the mark to nudge: start, cutoff, outcome, end", "choose"],
    [[",", "."], "nudge the chosen mark one frame earlier / later", "nudge"],
    [["g"], "show the frame of the chosen mark", "goto-mark"],
  ]],
  ["Steps", [
    [["n"], "new step from this frame", "create"],
    [["x"], "split the current step at this frame", "split"],
    [["m"], "merge the current step with the next", "merge"],
    [["Delete"], "retract the current step (its rows are kept)", "retract"],
    [["u"], "restore the step retracted last", "restore-last"],
    [["Enter"], "write labels (focus Local intent)", "edit"],
    [["t"], "tags: focus the tag input (Enter or , adds a tag)", "tags"],
    [["Escape"], "leave a text field, close a panel", "escape"],
    [["Ctrl+s"], "save now", "save"],
    [["h"], "history of the current step", "history"],
    [["v"], "render and show the Official clip preview of the saved step", "preview"],
  ]],
  ["Timeline", [
    [["+", "-"], "zoom in / out", "zoom"],
    [["0"], "fit the whole video", "fit"],
    [["?"], "this help", "help"],
  ]],
];

const PRETTY = { ArrowLeft: "←", ArrowRight: "→", ArrowUp: "↑", ArrowDown: "↓", " ": "Space" };

export function pretty(key) {
  return key.split("+").map((k) => PRETTY[k] || k).join("+");
}

// "Shift+ArrowLeft" for a keydown with Shift held, "ArrowLeft" without; letters lower-cased.
export function keyName(event) {
  let key = event.key === " " ? "Space" : event.key;
  if (key.length === 1) key = key.toLowerCase();
  const parts = [];
  if (event.ctrlKey || event.metaKey) parts.push("Ctrl");
  // Shift is part of printable keys already ("?", "+"); name it only for the others.
  if (event.shiftKey && key.length > 1) parts.push("Shift");
  if (event.altKey) parts.push("Alt");
  parts.push(key);
  return parts.join("+");
}

export function renderHelp(root) {
  const sections = BINDINGS.map(([title, rows]) => {
    const section = document.createElement("section");
    const h = document.createElement("h3");
    h.textContent = title;
    const table = document.createElement("table");
    for (const [keys, text] of rows) {
      const tr = document.createElement("tr");
      const td = document.createElement("td");
      keys.forEach((key, i) => {
        if (i) td.append(" ");
        const kbd = document.createElement("kbd");
        kbd.textContent = pretty(key);
        td.append(kbd);
      });
      const what = document.createElement("td");
      what.textContent = text;
      tr.append(td, what);
      table.append(tr);
    }
    section.append(h, table);
    return section;
  });
  root.querySelector("[data-role=bindings]").replaceChildren(...sections);
}

// Elements whose keys are their own: on them a key types, moves a caret, picks an option or
// presses the button — never a shortcut.
const OWN_KEYS = "button, input, textarea, select, a[href], summary, [contenteditable], [role=button]";

// The focus rule: a key is a shortcut only while focus is on the page itself (body) or inside a
// surface marked `data-shortcuts` (the player, the timeline), and not on an element of its own
// there. Everything else focusable is left alone.
export function takesShortcuts(element) {
  if (!element || element === document.body || element === document.documentElement) return true;
  if (element.isContentEditable || element.closest(OWN_KEYS)) return false;
  return Boolean(element.closest("[data-shortcuts]"));
}

// One keydown listener for a page's shortcuts: `handler(name, event)` is called with the key's
// name (keyName) when the focus rule allows it. `anywhere` names the few keys that act from any
// element (the workspace: Escape to leave a field, Ctrl+S to save).
export function listenForShortcuts(handler, { anywhere = [] } = {}) {
  document.addEventListener("keydown", (event) => {
    const name = keyName(event);
    if (anywhere.includes(name) || takesShortcuts(document.activeElement)) handler(name, event);
  });
}

// Controls whose keys are their own but that take no text: clicked with the pointer, they give
// the focus back (below). A field that takes text keeps it: the person is about to type there.
const CONTROLS = "button, input, video, audio, summary, [role=button], [role=checkbox], [role=radio]";
const TAKES_TEXT = "textarea, select, [contenteditable], input:not([type=checkbox]):not([type=radio])"
  + ":not([type=button]):not([type=submit]):not([type=reset]):not([type=range]):not([type=color])";

export function takesText(element) {
  return Boolean(element && element instanceof Element && (element.isContentEditable || element.matches(TAKES_TEXT)));
}

// A control clicked with the pointer (a button, a checkbox, a native video control) gives the
// focus back, so the next key is a shortcut again: to `home(control)` when that names a place
// (a review page's question), else to the page itself. A control reached with the keyboard keeps
// the focus (its keys stay its own), and so does one that takes text.
export function releaseFocusAfterClick(root, { home = null } = {}) {
  root.addEventListener("click", (event) => {
    if (event.detail === 0) return; // a keyboard activation, not a pointer click
    // Look once the click's own default actions are done (a label focuses its checkbox then).
    setTimeout(() => {
      const active = document.activeElement;
      if (!(active instanceof Element) || !root.contains(active) || takesText(active)) return;
      if (!active.matches(CONTROLS)) return;
      const place = home ? home(active) : null;
      if (place) place.focus({ preventScroll: true });
      else active.blur();
    }, 0);
  });
}

// What every campaign kind's reviewer item page does the same way (review/campaigns/item_views.py
// answers it): load the blind state and poll it while a clip is prepared, autosave the draft
// with a visible status, submit with the server's reasons shown, keep the lease while the page
// is open, open the next item after a submit, show "item n of N" and the time spent, and run the
// one key scheme of every review page (review-keys.js): j/k (or Tab) move between the page's
// questions, the current one is always in view, choice keys answer it and never move, and a
// pointer click on a control gives the focus back to the question. A kind's own script renders
// its state and inputs and hands this module what differs (see campaignItem below).
import { api, ApiError, NetworkError, request } from "./api.js";
import { listenForShortcuts, pretty, releaseFocusAfterClick, takesText } from "./keys.js";
import { bindingsOf } from "./review-keys.js";

const SAVE_DELAY_MS = 500;
const POLL_MS = 2000;
const RENEW_MS = 60000;
const RETRY_MS = [2000, 5000, 15000, 30000];

export function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

// The server's `{field: [messages]}` (or `{detail: text}`) as one line of sentences, each field
// named as the page labels it (`label(field)`; the field's own name when the page has none).
export function problemsOf(body, label = (field) => field) {
  const sentence = (text) => (/[.!?]$/.test(text) ? text : `${text}.`);
  return Object.entries(body || {})
    .map(([k, v]) => sentence(`${k === "detail" ? "" : `${label(k) || k}: `}${[].concat(v).join(" ")}`))
    .join(" ");
}

// Seconds as m:ss (h:mm:ss from an hour).
export function duration(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const tail = `${String(s % 60).padStart(2, "0")}`;
  return h ? `${h}:${String(m).padStart(2, "0")}:${tail}` : `${m}:${tail}`;
}

// Whether a question can be taken as seen: its top (what it asks and its answer buttons, the
// first SEEN_PX of it, or all of a shorter one) inside the window below `top`.
const SEEN_PX = 140;

export function inView(node, top = 0) {
  const r = node.getBoundingClientRect();
  const height = window.innerHeight || document.documentElement.clientHeight;
  return r.top >= top - 1 && r.top + Math.min(r.height, SEEN_PX) <= height;
}

// The help overlay's sections, from a kind's one bindings table: [title, [[keys, text, id], …]].
export function helpSections(bindings) {
  return bindings.map(([title, rows]) => {
    const section = el("section");
    section.append(el("h3", {}, title));
    const table = el("table");
    for (const [keys, text] of rows) {
      const tr = el("tr");
      const td = el("td");
      keys.forEach((key, n) => { if (n) td.append(" "); td.append(el("kbd", {}, pretty(key))); });
      tr.append(td, el("td", {}, text));
      table.append(tr);
    }
    section.append(table);
    return section;
  });
}

// The page's item under `root` (its data-*-url attributes name the item's JSON answers).
// `options`:
//   kind:              the page's map in review-keys.js (its help overlay: its keys, then the
//                      keys every review page shares)
//   draft():           the draft request's body ({part?, payload}), read when it is sent
//   done(state):       whether the item is done (no drafts, no lease renewal, no submit, no keys
//                      but the help)
//   stage(state):      what a state is at (a phase, a part); a state at another stage is adopted
//   adopt(state):      render a new state whole
//   update(next, prev): a state at the same stage: only media may have changed (what is being
//                      typed keeps its focus)
//   preparing(state):  whether a clip is still being prepared (the state is polled then)
//   label(field):      how the page names a field the server's errors use ("turns.0.structure"
//                      → "Turn 1 · Structure"); question(field): the index of its question
//   onKey(name, event), anywhere, escape(): the page's own keys; "?", Escape and the moving
//     keys are handled here (Escape closes the help, else calls `escape`, and leaves the
//     focused field for its question)
// The page's questions are its elements marked `data-question` (focusable: tabindex=0), in
// order; `item.index` is the current one's place.
export function campaignItem(root, options) {
  const $ = (role) => root.querySelector(`[data-role=${role}]`);
  const urls = root.dataset;
  const done = () => !item.state || options.done(item.state);
  const label = options.label || ((field) => field);
  let saveTimer = null;
  let saving = null; // the draft request in flight
  let again = false; // something changed while it was in flight
  let failures = 0;
  let busy = false;
  let progress = null; // {position, of, seconds, done} and when it arrived
  let moving = false; // the next item is being opened

  function status(text, kind = "") {
    const box = $("status");
    box.textContent = text;
    box.className = `status ${kind}`;
  }

  // --- progress ------------------------------------------------------------------------------

  function showProgress() {
    const box = $("progress");
    if (!box || !progress) return;
    const { position, of, seconds, at } = progress;
    const spent = progress.done ? seconds : seconds + (Date.now() - at) / 1000;
    box.textContent = `Item ${position} of ${of} · ${duration(spent)} on this item`;
  }

  // --- state, drafts, submissions ------------------------------------------------------------

  function show(next) {
    const prev = item.state;
    item.state = next;
    if (next.progress) {
      progress = { ...next.progress, at: Date.now() };
      showProgress();
    }
    if (prev && options.stage(prev) === options.stage(next)) options.update(next, prev);
    else options.adopt(next);
    root.dataset.done = options.done(next) ? "1" : "";
    if (options.preparing && options.preparing(next)) setTimeout(refresh, POLL_MS);
  }

  async function refresh() {
    try {
      show(await api.get(urls.stateUrl));
    } catch (error) {
      status(`Could not load the item: ${error.message}`, "error");
    }
  }

  function changed() {
    if (done()) return; // a submitted item is not edited: nothing to save
    clearTimeout(saveTimer);
    status("Draft not saved yet…");
    saveTimer = setTimeout(saveDraft, SAVE_DELAY_MS);
  }

  // Nothing typed is lost: a save that fails for want of an answer (offline, a server error) is
  // tried again, later each time, and a change made while a save is in flight is saved after it.
  async function saveDraft({ quiet = false } = {}) {
    clearTimeout(saveTimer);
    saveTimer = null;
    if (done()) return;
    if (saving) { again = true; return; }
    saving = request("PUT", urls.draftUrl, options.draft());
    try {
      const result = await saving;
      failures = 0;
      if (!quiet) status(result.lease_held ? "Draft saved." : "Draft saved; your claim on this item ended, submit may be refused.");
    } catch (error) {
      if (error instanceof NetworkError || (error instanceof ApiError && error.status >= 500)) {
        const wait = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)];
        failures += 1;
        status(`Draft not saved (${error.message}); it is kept in this page and sent again in ${wait / 1000} s.`, "error");
        if (!saveTimer) saveTimer = setTimeout(saveDraft, wait);
      } else {
        status(`Draft not saved: ${problemsOf(error.body, label) || error.message}`, "error");
      }
    } finally {
      saving = null;
    }
    if (again) { again = false; saveDraft({ quiet }); }
  }

  // Submits `body`; the next state (already adopted), or null when refused (the reasons are
  // shown naming the page's labels, the first bad question becomes the current one, `failed`
  // may do more, and the draft is kept). A submission that finishes the item opens the next
  // one (or the campaign's page, which says when the campaign is done).
  async function submit(body, failed = null) {
    if (busy || done()) return null;
    busy = true;
    const pending = saveTimer !== null;
    clearTimeout(saveTimer);
    saveTimer = null;
    try {
      const next = await api.post(urls.submitUrl, body);
      item.state = null; // a submitted state is adopted whole
      show(next);
      if (options.done(next)) {
        status("Submitted. Opening the next item…", "ok");
        goNext();
      }
      return next;
    } catch (error) {
      const detail = error instanceof ApiError ? problemsOf(error.body, label) : "";
      status(`Not submitted: ${detail || error.message}`, "error");
      const fields = error instanceof ApiError ? Object.keys(error.body || {}) : [];
      const bad = options.question ? fields.map(options.question).filter((n) => n !== null && n >= 0) : [];
      if (bad.length) item.focusQuestion(Math.min(...bad), { force: true });
      if (failed) failed(error);
      if (pending) saveDraft({ quiet: true });
      return null;
    } finally {
      busy = false;
    }
  }

  // The campaign's page claims the next item and redirects to it (or back to itself, which
  // says why nothing opened: the campaign is done, or others hold what is left). A real form
  // post, so the page that opens carries that message.
  function goNext() {
    if (moving) return;
    moving = true;
    const token = (document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/) || [])[1] || "";
    const form = el("form", { method: "post", action: urls.nextUrl, hidden: "" });
    form.append(el("input", { type: "hidden", name: "csrfmiddlewaretoken", value: decodeURIComponent(token) }));
    document.body.append(form);
    form.submit();
  }

  const item = {
    state: null, $, urls, status, refresh, changed, saveDraft, submit, goNext,
  };
  const keys = reviewKeys(root, {
    kind: options.kind,
    status,
    anywhere: options.anywhere,
    escape: options.escape,
    enabled: () => Boolean(item.state) && !done(),
    onKey: options.onKey,
  });
  // The key scheme's handles on the item (item.index is the current question's place).
  for (const name of ["focusQuestion", "questions", "seen", "reveal", "mark", "toggleHelp"]) item[name] = keys[name];
  Object.defineProperty(item, "index", { get: () => keys.index, set: (n) => { keys.index = n; } });
  setInterval(() => { if (!done()) api.post(urls.renewUrl, {}).catch(() => {}); }, RENEW_MS);
  setInterval(showProgress, 1000);
  window.addEventListener("beforeunload", () => { if (saveTimer) saveDraft(); });
  return item;
}

// The key scheme of every review page (the item pages above, the adjudication pages), on
// `root`: its questions are the elements marked `data-question` (focusable, tabindex=0), in
// order; j/k and the arrows move between them (Tab too, natively), the current one is marked,
// focused and always scrolled into view, a pointer click on a control inside a question gives
// the focus back to that question, "?" opens the help built from the page's map in
// review-keys.js, Escape closes it or leaves a text field for its question. The page's own
// keys go to `onKey(name, event)` while `enabled()`.
export function reviewKeys(root, { kind, status, onKey, anywhere = [], escape, enabled = () => true }) {
  const $ = (role) => root.querySelector(`[data-role=${role}]`);
  const keys = { index: 0 };

  // --- questions: the one key scheme ---------------------------------------------------------

  function questions() {
    return [...root.querySelectorAll("[data-question]")].filter((node) => !node.closest("[hidden]"));
  }

  // The sticky bar (progress and status) covers the top of the window: a question under it is
  // not in view.
  function visible(node) {
    const bar = $("bar");
    return inView(node, bar ? Math.max(0, bar.getBoundingClientRect().bottom) : 0);
  }

  // Scroll a question wholly into view (its top, when it is taller than the window).
  function reveal(node) {
    const bar = $("bar");
    const top = bar ? Math.max(0, bar.getBoundingClientRect().bottom) : 0;
    const r = node.getBoundingClientRect();
    const height = window.innerHeight || document.documentElement.clientHeight;
    if (r.top >= top - 1 && r.bottom <= height + 1) return;
    node.scrollIntoView({ block: r.height <= height - top ? "nearest" : "start" });
  }

  // Question i becomes the current one: marked, focused (unless a field is being typed in:
  // the question is marked and shown, the typing goes on) and scrolled into view.
  function focusQuestion(i, { focus = true, force = false } = {}) {
    const nodes = questions();
    if (!nodes.length) return null;
    keys.index = Math.min(Math.max(i, 0), nodes.length - 1);
    nodes.forEach((node, n) => node.classList.toggle("focused", n === keys.index));
    const node = nodes[keys.index];
    if (focus && (force || !takesText(document.activeElement))) node.focus({ preventScroll: true });
    reveal(node);
    return node;
  }

  // Whether the current question has been in view: a key that answers a question scrolled out
  // of sight shows it instead of answering it unseen.
  function seen() {
    const node = questions()[keys.index];
    if (!node || visible(node)) return true;
    reveal(node);
    status("This question was out of view; it is shown now: press the key again to answer it.");
    return false;
  }

  function questionOf(element) {
    const node = element instanceof Element ? element.closest("[data-question]") : null;
    return node && root.contains(node) ? node : null;
  }

  root.addEventListener("focusin", (event) => {
    const node = questionOf(event.target);
    const n = node ? questions().indexOf(node) : -1;
    if (n >= 0) focusQuestion(n, { focus: false });
  });

  function toggleHelp(show) {
    const help = $("help");
    if (help) help.hidden = show === undefined ? !help.hidden : !show;
  }

  const MOVES = { j: 1, ArrowDown: 1, k: -1, ArrowUp: -1 };

  function handle(name, event) {
    if (name === "?") { toggleHelp(); event.preventDefault(); return; }
    if (name === "Escape") {
      if ($("help") && !$("help").hidden) toggleHelp(false);
      else if (escape) escape();
      const active = document.activeElement;
      const home = questionOf(active);
      if (home && home !== active) home.focus({ preventScroll: true });
      else if (active && active !== document.body && active.blur && !home) active.blur();
      return;
    }
    if (!enabled()) return;
    if (name in MOVES && questions().length) {
      // Where the questions are fields themselves (typed scores), moving takes the focus along.
      focusQuestion(keys.index + MOVES[name], { force: questions().includes(document.activeElement) });
      event.preventDefault();
      return;
    }
    if (onKey) onKey(name, event);
  }

  // Until the person acts, a clip that gets its size (and moves what is below it) must not take
  // the current question out of view.
  let acted = false;
  for (const type of ["keydown", "pointerdown", "wheel"]) document.addEventListener(type, () => { acted = true; }, { once: true, capture: true });
  root.addEventListener("loadedmetadata", () => {
    const node = questions()[keys.index];
    if (!acted && node && node.classList.contains("focused")) reveal(node);
  }, true);

  Object.assign(keys, {
    questions, focusQuestion, seen, reveal, questionOf, toggleHelp,
    // After a page re-rendered its questions: mark the current one again.
    mark: (opts) => focusQuestion(keys.index, opts),
  });
  if (kind) $("bindings").replaceChildren(...helpSections(bindingsOf(kind)));
  const help = $("help");
  if (help) help.addEventListener("click", (event) => { if (event.target === help) toggleHelp(false); });
  listenForShortcuts(handle, { anywhere: ["Escape", ...anywhere] });
  releaseFocusAfterClick(root, { home: questionOf });
  return keys;
}

// What every campaign kind's reviewer item page does the same way (review/campaigns/item_views.py
// answers it): load the blind state and poll it while a clip is prepared, autosave the draft
// with a visible status, submit with the server's reasons shown, keep the lease while the page
// is open, open the next item, and the help overlay with its keys. A kind's own script renders
// its state and inputs and hands this module what differs (see campaignItem below).
import { api, ApiError, NetworkError, request } from "./api.js";
import { listenForShortcuts, releaseFocusAfterClick } from "./keys.js";

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

// The server's `{field: [messages]}` (or `{detail: text}`) as one line.
// The server's messages already name their field as the page labels it ("Local intent: …").
export function problemsOf(body, separator = "; ") {
  return Object.values(body || {})
    .map((v) => [].concat(v).join(" "))
    .join(separator);
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
      keys.forEach((key, n) => { if (n) td.append(" "); td.append(el("kbd", {}, key)); });
      tr.append(td, el("td", {}, text));
      table.append(tr);
    }
    section.append(table);
    return section;
  });
}

// The page's item under `root` (its data-*-url attributes name the item's JSON answers).
// `options`:
//   draft():           the draft request's body ({part?, payload}), read when it is sent
//   done(state):       whether the item is done (no drafts, no lease renewal, no submit)
//   stage(state):      what a state is at (a phase, a part); a state at another stage is adopted
//   adopt(state):      render a new state whole
//   update(next, prev): a state at the same stage: only media may have changed (what is being
//                      typed keeps its focus)
//   preparing(state):  whether a clip is still being prepared (the state is polled then)
//   bindings, onKey(name, event), anywhere, escape(): the keys; "?" and Escape are handled here
//     (Escape closes the help, else calls `escape`, and leaves the focused field)
export function campaignItem(root, options) {
  const $ = (role) => root.querySelector(`[data-role=${role}]`);
  const urls = root.dataset;
  const done = () => !item.state || options.done(item.state);
  let saveTimer = null;
  let saving = null; // the draft request in flight
  let again = false; // something changed while it was in flight
  let failures = 0;
  let busy = false;

  function status(text, kind = "") {
    const box = $("status");
    box.textContent = text;
    box.className = `status ${kind}`;
  }

  function show(next) {
    const prev = item.state;
    item.state = next;
    if (prev && options.stage(prev) === options.stage(next)) options.update(next, prev);
    else options.adopt(next);
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
        status(`Draft not saved: ${problemsOf(error.body) || error.message}`, "error");
      }
    } finally {
      saving = null;
    }
    if (again) { again = false; saveDraft({ quiet }); }
  }

  // Submits `body`; the next state (already adopted), or null when refused (the reasons are
  // shown, `failed(error)` may point at the first bad field, and the draft is kept).
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
      return next;
    } catch (error) {
      const detail = error instanceof ApiError ? problemsOf(error.body) : "";
      status(`Not submitted: ${detail || error.message}`, "error");
      if (failed) failed(error);
      if (pending) saveDraft({ quiet: true });
      return null;
    } finally {
      busy = false;
    }
  }

  // The campaign's page claims the next item and redirects to it (or back to itself when
  // nothing is left): follow the redirect and open wherever it ends.
  async function goNext() {
    try {
      const token = (document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/) || [])[1] || "";
      const response = await fetch(urls.nextUrl, {
        method: "POST",
        credentials: "same-origin",
        headers: { "X-CSRFToken": decodeURIComponent(token) },
      });
      window.location.assign(response.url || urls.nextUrl);
    } catch (error) {
      status(`Could not open the next item: ${error.message}`, "error");
    }
  }

  function toggleHelp(show) {
    const help = $("help");
    if (help) help.hidden = show === undefined ? !help.hidden : !show;
  }

  function onKey(name, event) {
    if (name === "?") { toggleHelp(); event.preventDefault(); return; }
    if (name === "Escape") {
      if ($("help") && !$("help").hidden) toggleHelp(false);
      else if (options.escape) options.escape();
      const active = document.activeElement;
      if (active && active !== document.body && active.blur) active.blur();
      return;
    }
    if (item.state) options.onKey(name, event);
  }

  const item = { state: null, $, urls, status, refresh, changed, saveDraft, submit, goNext, toggleHelp };

  if (options.bindings) $("bindings").replaceChildren(...helpSections(options.bindings));
  const help = $("help");
  if (help) help.addEventListener("click", (event) => { if (event.target === help) toggleHelp(false); });
  if (options.onKey) listenForShortcuts(onKey, { anywhere: ["Escape", ...(options.anywhere || [])] });
  releaseFocusAfterClick(root);
  setInterval(() => { if (!done()) api.post(urls.renewUrl, {}).catch(() => {}); }, RENEW_MS);
  window.addEventListener("beforeunload", () => { if (saveTimer) saveDraft(); });
  return item;
}

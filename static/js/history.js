// A step's history: every revision, newest first, with who, when, why and a field-by-field
// diff. Rendered from the history endpoint; every value is text.

import { api, withId } from "./api.js";

export function renderRevisions(list, revisions) {
  const items = revisions.map((revision) => {
    const li = document.createElement("li");
    li.className = "revision";
    li.dataset.version = String(revision.version);
    const head = document.createElement("div");
    head.className = "revision-head";
    head.append(`v${revision.version} · ${revision.action_name} · ${revision.author || "system"} · `);
    const when = document.createElement("time");
    when.dateTime = revision.created_at; // ISO 8601 from the server
    when.textContent = revision.created_at_text; // as on the history page
    head.append(when);
    li.append(head);
    if (revision.reason) {
      const why = document.createElement("div");
      why.className = "revision-reason";
      why.textContent = revision.reason;
      li.append(why);
    }
    const table = document.createElement("table");
    table.className = "diff";
    for (const change of revision.changes) {
      const tr = document.createElement("tr");
      tr.dataset.field = change.field;
      const th = document.createElement("th");
      th.textContent = change.name;
      const before = document.createElement("td");
      before.className = "before";
      before.textContent = change.before_text; // the server's text (annotation/history.py)
      const after = document.createElement("td");
      after.className = "after";
      after.textContent = change.after_text;
      tr.append(th, before, after);
      table.append(tr);
    }
    li.append(table);
    return li;
  });
  list.replaceChildren(...items);
}

export class HistoryPanel {
  constructor(root, { urls }) {
    this.root = root;
    this.urls = urls;
    this.list = root.querySelector("[data-role=revisions]");
    this.title = root.querySelector("[data-role=title]");
    this.link = root.querySelector("[data-role=page-link]");
    root.querySelector("[data-action=close]").addEventListener("click", () => this.close());
  }

  get open() {
    return !this.root.hidden;
  }

  close() {
    this.root.hidden = true;
  }

  async show(id) {
    this.root.hidden = false;
    this.title.textContent = "History";
    this.link.href = withId(this.urls.historyPage, id);
    this.list.replaceChildren();
    try {
      const data = await api.get(withId(this.urls.history, id));
      this.title.textContent = `${data.title} — history`;
      renderRevisions(this.list, data.revisions);
    } catch (error) {
      const li = document.createElement("li");
      li.className = "error";
      li.textContent = `History unavailable: ${error.message}`;
      this.list.replaceChildren(li);
    }
  }
}

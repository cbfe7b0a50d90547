// The Official clip preview: the step's saved [start, cutoff) rendered by the media pipeline
// exactly as a model or rater receives it, played from its opaque URL. Asking again is free
// (the server keys renders by content), so the page polls by repeating the request.

import { api, withId } from "./api.js";

const POLL_MS = 1000;
const GIVE_UP_MS = 180_000;

export class Preview {
  constructor(root, { urls }) {
    this.root = root;
    this.urls = urls;
    this.status = root.querySelector("[data-role=preview-status]");
    this.video = root.querySelector("[data-role=preview-video]");
    this.token = 0;
    this.shown = null; // {id, start_us, cutoff_us} of the clip on screen
  }

  _set(state, text) {
    this.root.dataset.state = state;
    this.status.textContent = text;
  }

  // The step changed or another one was selected: a clip of other times is no longer the preview.
  follow(entry) {
    if (!this.shown) return;
    const same = entry && entry.id === this.shown.id
      && entry.local.start_us === this.shown.start_us && entry.local.cutoff_us === this.shown.cutoff_us;
    if (!same) {
      this.token += 1;
      this.shown = null;
      this.video.removeAttribute("src");
      this.video.hidden = true;
      this._set("stale", "The step or its times changed: press v to render the preview again.");
    }
  }

  async request(entry) {
    const token = ++this.token;
    const started = Date.now();
    this.shown = { id: entry.id, start_us: entry.server.start_us, cutoff_us: entry.server.cutoff_us };
    this._set("pending", "Rendering the Official clip…");
    while (token === this.token) {
      let answer;
      try {
        answer = await api.post(withId(this.urls.preview, entry.id));
      } catch (error) {
        if (token === this.token) this._set("failed", `No preview: ${error.message}`);
        return;
      }
      if (token !== this.token) return;
      const frames = answer.frame_count === 1 ? "1 frame" : `${answer.frame_count} frames`;
      const span = `source frames #${answer.first_frame}–#${answer.last_frame} (${frames})`;
      if (answer.status === "ready") {
        this.video.src = answer.url;
        this.video.hidden = false;
        this.root.dataset.lastFrame = String(answer.last_frame);
        this._set("ready", `Official clip, ${span}; it ends on the last frame before the cutoff.`);
        return;
      }
      if (answer.status === "failed") {
        this._set("failed", `The render failed: ${answer.error}`);
        return;
      }
      if (Date.now() - started > GIVE_UP_MS) {
        this._set("failed", "The render is taking too long; is a media worker running?");
        return;
      }
      this._set("pending", `Rendering the Official clip, ${span}…`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}

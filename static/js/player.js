// A frame-exact player over a <video> element, driven by the video's frame-time index.
//
// Paused, the player owns the frame: it seeks to the middle of the frame's display interval
// and waits until that frame is presented. Playing, requestVideoFrameCallback reports the
// mediaTime of every presented frame, which the index turns back into a frame number; that is
// how "play to cutoff" stops on the last frame before the cutoff, on variable frame rate too.

export const SPEEDS = [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4];

export class Player extends EventTarget {
  constructor(video, index) {
    super();
    this.video = video;
    this.index = index;
    this.frame = 0;
    this.range = null; // {from, to (exclusive frame index), loop}
    this.seeking = Promise.resolve();
    this._seekToken = 0;
    video.muted = true;
    video.preload = "auto";
    const watch = (now, meta) => {
      this._presented(meta.mediaTime);
      video.requestVideoFrameCallback(watch);
    };
    if ("requestVideoFrameCallback" in HTMLVideoElement.prototype) {
      video.requestVideoFrameCallback(watch);
    } else {
      video.addEventListener("timeupdate", () => this._presented(video.currentTime));
    }
    video.addEventListener("play", () => this._emit());
    video.addEventListener("pause", () => this._emit());
    video.addEventListener("ratechange", () => this._emit());
  }

  // Where frame 0 sits on this browser's timeline for this file, in µs. Containers differ (an
  // MP4 without an edit list whose first picture is shown after B-frame reordering, a Matroska
  // file starting at 1.5 s...) and browsers do not all start the timeline at the first frame the
  // way ffmpeg's probe does, so the player asks the element: the mediaTime it reports for the
  // first frame is the offset to add to every frame time.
  async calibrate(fallbackUs = 0) {
    const video = this.video;
    if (!("requestVideoFrameCallback" in HTMLVideoElement.prototype)) return fallbackUs;
    const attempt = (seconds) => new Promise((resolve) => {
      let done = false;
      video.requestVideoFrameCallback((now, meta) => {
        done = true;
        resolve(Math.round(meta.mediaTime * 1e6));
      });
      setTimeout(() => done || resolve(null), 1500);
      video.currentTime = seconds;
    });
    // Seeking to 0 shows the first frame; if the element was already there and presents
    // nothing new, a seek to a microsecond later does.
    const origin = (await attempt(0)) ?? (await attempt(1e-6));
    return origin === null ? fallbackUs : origin;
  }

  get playing() {
    return !this.video.paused && !this.video.ended;
  }

  get rate() {
    return this.video.playbackRate;
  }

  _emit() {
    this.dispatchEvent(new CustomEvent("frame", { detail: { frame: this.frame } }));
  }

  _presented(mediaTime) {
    if (!this.playing) return;
    const frame = this.index.frameOfMediaTime(mediaTime);
    this.frame = frame;
    const range = this.range;
    if (range && frame >= range.to - 1) {
      if (range.loop) {
        this.seekFrame(range.from).then(() => this.video.play());
      } else {
        this.range = null;
        this.video.pause();
        // The element may have run a frame past the stop: land exactly on the last one.
        this.seekFrame(range.to - 1);
      }
    }
    this._emit();
  }

  // Show frame i; resolves once the element has presented it.
  seekFrame(i) {
    const frame = Math.min(Math.max(i, 0), this.index.count - 1);
    const token = ++this._seekToken;
    this.frame = frame;
    this.video.dataset.state = "seeking";
    this._emit();
    const target = this.index.seekSeconds(frame);
    this.seeking = new Promise((resolve) => {
      const done = () => {
        if (token === this._seekToken) {
          this.video.dataset.state = "idle";
          this.video.dataset.frame = String(this.frame);
          this._emit();
        }
        resolve();
      };
      const onSeeked = () => {
        this.video.removeEventListener("seeked", onSeeked);
        // "seeked" can fire before the new picture is composited; wait for its presentation.
        if ("requestVideoFrameCallback" in HTMLVideoElement.prototype && !this.playing) {
          let settled = false;
          this.video.requestVideoFrameCallback(() => {
            settled = true;
            done();
          });
          setTimeout(() => settled || done(), 250);
        } else {
          done();
        }
      };
      this.video.addEventListener("seeked", onSeeked);
      this.video.currentTime = target;
    });
    return this.seeking;
  }

  step(delta) {
    if (this.playing) this.pause();
    return this.seekFrame(this.frame + delta);
  }

  play() {
    this.range = null;
    this.video.play();
  }

  pause() {
    this.range = null;
    this.video.pause();
    // Settle on a whole frame so the next step or mark starts from what is on screen.
    this.seekFrame(this.frame);
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  setRate(rate) {
    const clamped = Math.min(Math.max(rate, SPEEDS[0]), SPEEDS[SPEEDS.length - 1]);
    this.video.playbackRate = clamped;
    this._emit();
  }

  faster(direction) {
    const current = this.video.playbackRate;
    let k = SPEEDS.findIndex((s) => s >= current - 1e-9);
    if (k < 0) k = SPEEDS.length - 1;
    k = Math.min(Math.max(k + direction, 0), SPEEDS.length - 1);
    this.setRate(SPEEDS[k]);
  }

  // Play frames [from, to) and stop on frame to-1, or loop while ``loop`` is set.
  async playRange(from, to, { loop = false } = {}) {
    if (to - from < 1) return;
    await this.seekFrame(from);
    this.range = { from, to, loop };
    if (to - from === 1) {
      this.range = null;
      return;
    }
    await this.video.play();
  }
}

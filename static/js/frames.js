// The time base, mirrored from media/timebase.py: integer microseconds, the first frame at 0,
// half-open windows [a, b). A "boundary" is a time a mark may take: a frame's time, or the end
// of the video (a cutoff or end after the last frame).

import { ApiError, NetworkError } from "./api.js";

export class FrameIndex {
  constructor(timesUs, durationUs, originUs = 0) {
    this.times = timesUs;
    this.duration = durationUs;
    // Where frame 0 sits on the file's own timeline (what the <video> element counts in).
    this.origin = originUs;
  }

  get count() {
    return this.times.length;
  }

  // Index of the frame on screen at time t: the last frame with time <= t.
  frameAt(tUs) {
    const times = this.times;
    let lo = 0;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (times[mid] <= tUs) lo = mid + 1;
      else hi = mid;
    }
    return Math.max(lo - 1, 0);
  }

  // Index of the frame whose time is nearest to t (ties to the earlier one).
  nearestFrame(tUs) {
    const i = this.frameAt(tUs);
    if (i + 1 < this.times.length && this.times[i + 1] - tUs < tUs - this.times[i]) return i + 1;
    return i;
  }

  timeOf(i) {
    return this.times[Math.min(Math.max(i, 0), this.times.length - 1)];
  }

  // The boundary after frame i: the next frame's time, or the end of the video.
  after(i) {
    return i + 1 < this.times.length ? this.times[i + 1] : this.duration;
  }

  // The boundary nearest to t: a frame time or the end of the video.
  snap(tUs) {
    if (tUs >= this.duration) return this.duration;
    const i = this.nearestFrame(tUs);
    const last = this.times.length - 1;
    if (i === last && this.duration - tUs < tUs - this.times[last]) return this.duration;
    return this.times[i];
  }

  // Index of a boundary among frame times + [duration] (so nudging can move by one).
  boundaryIndex(tUs) {
    if (tUs >= this.duration) return this.times.length;
    return this.nearestFrame(tUs);
  }

  boundary(k) {
    if (k <= 0) return this.times[0];
    if (k >= this.times.length) return this.duration;
    return this.times[k];
  }

  // Seek target for frame i in seconds: the middle of its display interval, so rounding in the
  // media element can never land on a neighbour, on constant and variable frame rate alike.
  seekSeconds(i) {
    const t = this.timeOf(i);
    const next = this.after(i);
    return (this.origin + t + (next - t) / 2) / 1e6;
  }

  // The frame a presented media time belongs to (requestVideoFrameCallback's mediaTime).
  frameOfMediaTime(seconds) {
    return this.nearestFrame(Math.round(seconds * 1e6) - this.origin);
  }
}

export function clock(us) {
  const msTotal = Math.floor(us / 1000);
  const h = Math.floor(msTotal / 3_600_000);
  const m = Math.floor((msTotal % 3_600_000) / 60_000);
  const s = Math.floor((msTotal % 60_000) / 1000);
  const ms = msTotal % 1000;
  const tail = `${String(s).padStart(2, "0")}.${String(ms).padStart(3, "0")}`;
  return h ? `${h}:${String(m).padStart(2, "0")}:${tail}` : `${m}:${tail}`;
}

// The frame a mark names, in the same words as the server (studio/display.py, frame_words):
// `boundary` is the first frame at or after the mark; a cutoff is the first frame withheld, so
// people read the last frame shown; an end, the step's last frame.
export function frameWords(mark, boundary) {
  if (mark === "cutoff_us") return boundary > 0 ? `last shown #${boundary - 1}` : "no frame shown";
  if (mark === "end_us") return boundary > 0 ? `last #${boundary - 1}` : "no frame";
  return `frame #${boundary}`;
}

// A time as people read it: 0:04.200 · last shown #125 (studio/display.py, timecode).
export function timecode(mark, us, index) {
  return index ? `${clock(us)} · ${frameWords(mark, index.boundaryIndex(us))}` : clock(us);
}

// The frame-time index in its compact form (annotation API, FrameDeltasRenderer): the zlib
// stream of little-endian int64 deltas, the first delta the first time. Decompressed by the
// browser itself; a running sum gives the times. Each delta is read as two 32-bit halves, exact
// for any time below 2^53 µs. A long source's index is tens of kilobytes this way, not megabytes.
export const FRAME_DELTAS = "application/vnd.intent-studio.frame-deltas";

export async function fetchFrameTimes(url) {
  let response;
  try {
    // The index of a file never changes: let the browser revalidate it by ETag (304).
    response = await fetch(url, { headers: { Accept: FRAME_DELTAS }, credentials: "same-origin", cache: "no-cache" });
  } catch (error) {
    throw new NetworkError(String(error));
  }
  if (!response.ok) {
    let body = null;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    throw new ApiError(response.status, body);
  }
  let buffer;
  try {
    buffer = await new Response(response.body.pipeThrough(new DecompressionStream("deflate"))).arrayBuffer();
  } catch {
    throw new NetworkError("the frame index was cut off");
  }
  const view = new DataView(buffer);
  const count = buffer.byteLength / 8;
  const times = new Float64Array(count);
  let t = 0;
  for (let i = 0; i < count; i++) {
    t += view.getUint32(8 * i, true) + view.getInt32(8 * i + 4, true) * 4294967296;
    times[i] = t;
  }
  const expected = Number(response.headers.get("X-Frame-Count"));
  if (!Number.isInteger(count) || (expected && expected !== count)) throw new NetworkError("the frame index was cut off");
  return times;
}

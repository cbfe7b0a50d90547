// Local drafts: every edit is written to localStorage at once, keyed by video, step and the
// version the edit is based on, so a reload, a crash or a dropped connection loses nothing.
// A draft also keeps the request that was in flight: after a reload that exact request is sent
// again first, and the server acknowledges a repeat without writing a second revision.

const PREFIX = "studio:draft:";
const CREATE = "studio:create:";

function safeParse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function keys(prefix) {
  const found = [];
  for (let i = 0; i < localStorage.length; i += 1) {
    const key = localStorage.key(i);
    if (key && key.startsWith(prefix)) found.push(key);
  }
  return found;
}

export class Drafts {
  constructor(videoId) {
    this.videoId = videoId;
  }

  _key(uid, base) {
    return `${PREFIX}${this.videoId}:${uid}:${base}`;
  }

  save(entry, values, inflight = null) {
    // One draft per step: the one based on the current version replaces older ones.
    this.clear(entry.uid);
    const draft = {
      stepId: entry.id,
      uid: entry.uid,
      base: entry.base,
      values,
      inflight,
      at: new Date().toISOString(),
    };
    try {
      localStorage.setItem(this._key(entry.uid, entry.base), JSON.stringify(draft));
    } catch {
      // Storage full or disabled: the page keeps working, the status line says unsaved.
    }
  }

  clear(uid) {
    for (const key of keys(`${PREFIX}${this.videoId}:${uid}:`)) localStorage.removeItem(key);
  }

  all() {
    return keys(`${PREFIX}${this.videoId}:`)
      .map((key) => safeParse(localStorage.getItem(key)))
      .filter((d) => d && d.uid && Number.isInteger(d.base) && d.values);
  }

  saveCreate(body) {
    localStorage.setItem(`${CREATE}${this.videoId}:${body.uid}`, JSON.stringify(body));
  }

  clearCreate(uid) {
    localStorage.removeItem(`${CREATE}${this.videoId}:${uid}`);
  }

  creates() {
    return keys(`${CREATE}${this.videoId}:`)
      .map((key) => safeParse(localStorage.getItem(key)))
      .filter((b) => b && b.uid);
  }
}

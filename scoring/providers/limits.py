"""Per-endpoint limits that hold across every worker process.

Three limits per endpoint: requests in flight (``max_concurrency``), requests started in any 60 s
(``rpm``) and tokens used in any 60 s (``tpm``). A 429 halves the concurrency for
``MODEL_ADAPTIVE_COOLDOWN_SECONDS`` (again on every further 429) and the change is logged; every
process sees it because it lives in the shared state.

Two stores, one algorithm:
- Redis (``MODEL_LIMITER_URL=redis://...``, the default when the broker is Redis): each check is
  one Lua script, atomic on the server and timed by the server's clock;
- files (``file:///dir``, the embedded default): one small JSON state per endpoint, read and
  written under an exclusive ``flock``, so processes on one machine queue on the lock.

A slot carries an expiry (the call's timeout plus a margin), so a process killed mid-call frees
its slot without anyone cleaning up.

Waiting: a thread that finds the endpoint full sleeps until a thread of its own process releases
a slot of that endpoint (it then tries again at once) or ``POLL_MS`` pass (a slot freed by
another process). The shared store stays the only judge of who gets a slot; the wake-up only
saves the polling, which with dozens of waiting threads costs more than the calls.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

log = logging.getLogger("scoring.limits")
WINDOW_MS = 60_000
POLL_MS = 50


@dataclass(frozen=True)
class Limits:
    key: str  # names the endpoint in the shared store
    label: str  # for log lines
    max_concurrency: int
    rpm: int = 0
    tpm: int = 0
    slot_ms: int = 180_000  # a slot expires after this (the call's timeout plus a margin)


class Stopped(Exception):
    """Waiting for a slot was given up because the work was cancelled."""


class _Store:
    def try_acquire(self, limits: Limits, member: str) -> int:
        """0 when the slot was taken, else milliseconds to wait before trying again."""
        raise NotImplementedError

    def release(self, limits: Limits, member: str, tokens: int) -> None:
        raise NotImplementedError

    def throttle(self, limits: Limits, cooldown_ms: int) -> int:
        """Halve the effective concurrency for ``cooldown_ms``; returns the new cap."""
        raise NotImplementedError

    def snapshot(self, limits: Limits) -> dict:
        raise NotImplementedError

    def clear(self, limits: Limits) -> None:
        raise NotImplementedError


# --- Redis ----------------------------------------------------------------------------------------

_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local limit = tonumber(ARGV[2])
local cap = redis.call('GET', KEYS[4])
if cap then limit = math.min(limit, tonumber(cap)) end
if redis.call('ZCARD', KEYS[1]) >= limit then return tonumber(ARGV[6]) end
local rpm = tonumber(ARGV[4])
if rpm > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - 60000)
  if redis.call('ZCARD', KEYS[2]) >= rpm then
    local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    return math.max(1, tonumber(oldest[2]) + 60000 - now)
  end
end
local tpm = tonumber(ARGV[5])
if tpm > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - 60000)
  local used = 0
  for _, m in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
    used = used + tonumber(string.match(m, ':(%d+)$'))
  end
  if used >= tpm then
    local oldest = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
    return math.max(1, tonumber(oldest[2]) + 60000 - now)
  end
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) + 60000)
if rpm > 0 then
  redis.call('ZADD', KEYS[2], now, ARGV[1])
  redis.call('PEXPIRE', KEYS[2], 61000)
end
return 0
"""

_RELEASE = """
redis.call('ZREM', KEYS[1], ARGV[1])
local tokens = tonumber(ARGV[2])
if tokens > 0 then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('ZADD', KEYS[3], now, ARGV[1] .. ':' .. tokens)
  redis.call('PEXPIRE', KEYS[3], 61000)
end
return 0
"""

_THROTTLE = """
local limit = tonumber(ARGV[1])
local cap = redis.call('GET', KEYS[4])
if cap then limit = math.min(limit, tonumber(cap)) end
local lowered = math.max(1, math.floor(limit / 2))
redis.call('SET', KEYS[4], lowered, 'PX', tonumber(ARGV[2]))
return lowered
"""


class _RedisStore(_Store):
    def __init__(self, url: str, prefix: str):
        import redis

        self.client = redis.Redis.from_url(url)
        self.prefix = prefix
        self._acquire = self.client.register_script(_ACQUIRE)
        self._release = self.client.register_script(_RELEASE)
        self._throttle = self.client.register_script(_THROTTLE)

    def _keys(self, limits: Limits) -> list[str]:
        base = f"{self.prefix}{limits.key}"
        return [f"{base}:slots", f"{base}:starts", f"{base}:tokens", f"{base}:cap"]

    def try_acquire(self, limits, member):
        args = [member, limits.max_concurrency, limits.slot_ms, limits.rpm, limits.tpm, POLL_MS]
        return int(self._acquire(keys=self._keys(limits), args=args))

    def release(self, limits, member, tokens):
        self._release(keys=self._keys(limits), args=[member, int(tokens) if limits.tpm else 0])

    def throttle(self, limits, cooldown_ms):
        return int(
            self._throttle(keys=self._keys(limits), args=[limits.max_concurrency, cooldown_ms])
        )

    def snapshot(self, limits):
        slots, _starts, _tokens, cap = self._keys(limits)
        now_s, now_us = self.client.time()
        now = now_s * 1000 + now_us // 1000
        return {
            "in_flight": self.client.zcount(slots, now, "+inf"),
            "cap": int(self.client.get(cap) or limits.max_concurrency),
        }

    def clear(self, limits):
        self.client.delete(*self._keys(limits))


# --- files ----------------------------------------------------------------------------------------


class _FileStore(_Store):
    def __init__(self, directory: str):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    @contextmanager
    def _state(self, limits: Limits):
        path = self.directory / f"{limits.key}.json"
        with open(self.directory / f"{limits.key}.lock", "a+b") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                try:
                    state = json.loads(path.read_bytes() or b"{}")
                except (FileNotFoundError, ValueError):
                    state = {}
                state.setdefault("slots", {})
                state.setdefault("starts", [])
                state.setdefault("tokens", [])
                before = json.dumps(state, sort_keys=True)
                yield state
                after = json.dumps(state, sort_keys=True)
                if after != before:
                    tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
                    tmp.write_text(after)
                    os.replace(tmp, path)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    @staticmethod
    def _now() -> int:
        return int(time.time() * 1000)

    def _cap(self, state: dict, limits: Limits, now: int) -> int:
        cap = state.get("cap")
        if cap and state.get("cap_until", 0) > now:
            return min(limits.max_concurrency, int(cap))
        return limits.max_concurrency

    def try_acquire(self, limits, member):
        with self._state(limits) as state:
            now = self._now()
            slots = {m: e for m, e in state["slots"].items() if e > now}
            state["slots"] = slots
            if len(slots) >= self._cap(state, limits, now):
                return POLL_MS
            if limits.rpm:
                starts = [t for t in state["starts"] if t > now - WINDOW_MS]
                state["starts"] = starts
                if len(starts) >= limits.rpm:
                    return max(1, min(starts) + WINDOW_MS - now)
            if limits.tpm:
                used = [(t, n) for t, n in state["tokens"] if t > now - WINDOW_MS]
                state["tokens"] = used
                if sum(n for _, n in used) >= limits.tpm:
                    return max(1, min(t for t, _ in used) + WINDOW_MS - now)
            slots[member] = now + limits.slot_ms
            if limits.rpm:
                state["starts"].append(now)
            return 0

    def release(self, limits, member, tokens):
        with self._state(limits) as state:
            state["slots"].pop(member, None)
            if limits.tpm and tokens:
                state["tokens"].append([self._now(), int(tokens)])

    def throttle(self, limits, cooldown_ms):
        with self._state(limits) as state:
            now = self._now()
            lowered = max(1, self._cap(state, limits, now) // 2)
            state["cap"], state["cap_until"] = lowered, now + cooldown_ms
            return lowered

    def snapshot(self, limits):
        with self._state(limits) as state:
            now = self._now()
            return {
                "in_flight": sum(1 for e in state["slots"].values() if e > now),
                "cap": self._cap(state, limits, now),
            }

    def clear(self, limits):
        for suffix in (".json", ".lock"):
            (self.directory / f"{limits.key}{suffix}").unlink(missing_ok=True)


# --- the limiter ----------------------------------------------------------------------------------

_stores: dict[str, _Store] = {}  # by URL and prefix
_stores_lock = threading.Lock()


def _store() -> _Store:
    url = settings.MODEL_LIMITER_URL
    key = f"{url} {settings.MODEL_LIMITER_PREFIX}"
    with _stores_lock:
        store = _stores.get(key)
        if store is None:
            if url.startswith(("redis://", "rediss://", "unix://")):
                store = _RedisStore(url, settings.MODEL_LIMITER_PREFIX)
            elif url.startswith("file://"):
                store = _FileStore(url.removeprefix("file://"))
            else:
                raise ValueError(f"MODEL_LIMITER_URL={url!r}: use redis://... or file:///dir")
            _stores[key] = store
        return store


class _Releases:
    """Slots of one endpoint released in this process: a counter and a condition to wait on."""

    def __init__(self):
        self.condition = threading.Condition()
        self.count = 0

    def released(self) -> None:
        with self.condition:
            self.count += 1
            self.condition.notify()

    def wait(self, seen: int, seconds: float) -> None:
        """Sleep ``seconds`` unless a slot was released since the count was ``seen``."""
        with self.condition:
            if self.count == seen:
                self.condition.wait(seconds)


_releases: dict[str, _Releases] = {}


def _releases_of(key: str) -> _Releases:
    with _stores_lock:
        return _releases.setdefault(key, _Releases())


@contextmanager
def slot(limits: Limits, *, should_stop: Callable[[], bool] = lambda: False):
    """Wait for a slot of ``limits`` and hold it for the block. The block may set
    ``held.tokens`` (tokens the call used) before it ends, for the tokens-per-minute limit."""
    store = _store()
    releases = _releases_of(limits.key)
    member = secrets.token_hex(8)
    checked = time.monotonic()
    while True:
        seen = releases.count
        wait_ms = store.try_acquire(limits, member)
        if wait_ms == 0:
            break
        if time.monotonic() - checked > 0.5:
            checked = time.monotonic()
            if should_stop():
                raise Stopped
        # A little jitter keeps waiting threads from hitting the store in lockstep.
        releases.wait(seen, min(wait_ms, 1000) / 1000 * (0.5 + secrets.randbelow(1000) / 1000))
    held = _Held()
    try:
        yield held
    finally:
        store.release(limits, member, held.tokens)
        releases.released()


class _Held:
    tokens = 0


def throttle(limits: Limits) -> int:
    """After a 429: halve the endpoint's concurrency for a while, for every process."""
    cooldown = settings.MODEL_ADAPTIVE_COOLDOWN_SECONDS
    lowered = _store().throttle(limits, cooldown * 1000)
    log.warning(
        "%s answered 429: concurrency lowered to %d for %d s (configured %d)",
        limits.label,
        lowered,
        cooldown,
        limits.max_concurrency,
    )
    return lowered


def snapshot(limits: Limits) -> dict:
    return _store().snapshot(limits)


def clear(limits: Limits) -> None:
    _store().clear(limits)

"""One call to an OpenAI-compatible chat completions API, with retries, limits and a record of
every attempt.

Retries: on 429, 408/409/425, 5xx, timeouts and connection errors, up to the endpoint's attempts.
The wait before attempt n+1 is the provider's ``Retry-After`` when it sent one (seconds or an HTTP
date, at most ``MODEL_RETRY_AFTER_MAX_SECONDS``), otherwise "full jitter": a uniform random time
in ``[0, min(MODEL_BACKOFF_MAX_SECONDS, MODEL_BACKOFF_BASE_SECONDS * 2**(n-1))]``. Redirects are
never followed. The key is only ever in the Authorization header; every text that is kept goes
through ``redact``.
"""

from __future__ import annotations

import email.utils
import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

import httpx2 as httpx
from django.conf import settings

from scoring.providers import limits as limiter
from scoring.providers.addresses import base_url_check
from scoring.providers.media import Body
from scoring.providers.outcomes import Verdict, classify_completion, classify_status
from scoring.providers.secrets import api_key, redact

MAX_KEPT_BYTES = 2 * 1024 * 1024  # of a response body
_clients: dict[tuple, httpx.Client] = {}
_clients_lock = threading.Lock()


@dataclass(frozen=True)
class EndpointConfig:
    """What a call needs to know about an endpoint (a snapshot: no database in the hot path)."""

    key: str
    name: str
    base_url: str
    model: str
    api_key_env: str = ""
    max_concurrency: int = 4
    rpm: int = 0
    tpm: int = 0
    attempts: int = 6
    timeout_seconds: int = 120

    @property
    def limits(self) -> limiter.Limits:
        return limiter.Limits(
            key=self.key,
            label=f"endpoint {self.name}",
            max_concurrency=self.max_concurrency,
            rpm=self.rpm,
            tpm=self.tpm,
            slot_ms=(self.timeout_seconds + 30) * 1000,
        )


@dataclass
class Attempt:
    started: str
    status: int | None
    latency_ms: int
    error: str = ""
    tokens: dict | None = None


@dataclass
class CallResult:
    verdict: Verdict
    content: str | None = None
    raw_response: str = ""
    returned_model: str = ""
    attempts: list[Attempt] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def attempts_json(self) -> list[dict]:
        return [asdict(a) for a in self.attempts]


class Cancelled(Exception):
    """The run was cancelled while this call waited; nothing was decided."""


def _client(timeout: int) -> httpx.Client:
    key = (timeout,)  # one connection pool per timeout, shared by all threads
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            client = httpx.Client(
                timeout=httpx.Timeout(timeout, connect=min(timeout, 15)),
                follow_redirects=False,
                trust_env=False,
                limits=httpx.Limits(max_connections=256, max_keepalive_connections=64),
            )
            _clients[key] = client
        return client


def retry_after_seconds(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()
    if seconds != seconds:  # NaN
        return None
    return min(max(seconds, 0.0), settings.MODEL_RETRY_AFTER_MAX_SECONDS)


def backoff_seconds(attempt: int) -> float:
    """Full jitter after the ``attempt``-th failed attempt (1-based)."""
    cap = min(
        settings.MODEL_BACKOFF_MAX_SECONDS, settings.MODEL_BACKOFF_BASE_SECONDS * 2 ** (attempt - 1)
    )
    return random.uniform(0, cap)  # noqa: S311 - jitter, not security


def _sleep(seconds: float, should_stop: Callable[[], bool]) -> None:
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        if should_stop():
            raise Cancelled
        time.sleep(min(left, 0.5))


def _usage(data) -> dict | None:
    usage = data.get("usage") if isinstance(data, dict) else None
    if not isinstance(usage, dict):
        return None
    return {k: int(v) for k, v in usage.items() if k.endswith("_tokens") and isinstance(v, int)}


def chat_call(
    endpoint: EndpointConfig,
    body: dict | bytes | Body | Callable[[], dict | bytes | Body],
    *,
    should_stop: Callable[[], bool] = lambda: False,
) -> CallResult:
    """POST ``body`` to ``{base_url}/chat/completions`` until a decision; never raises for what
    the provider does (only ``Cancelled``).

    ``body`` is the body, its JSON bytes, a ``media.Body`` (sent piece by piece under one
    Content-Length, its media encoded only while sent, so a call waiting for a slot holds no
    media bytes), or a function returning one of them. It is made before the first attempt, so
    a slot is held only while the request is on the wire."""
    result = CallResult(verdict=Verdict("api_error", "no attempt was made"))
    try:
        key = api_key(endpoint.api_key_env)
        url = base_url_check(endpoint.base_url) + "/chat/completions"
    except (ValueError, RuntimeError) as exc:
        result.verdict = Verdict("api_error", str(exc))
        return result
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    payload = body() if callable(body) else body
    if isinstance(payload, dict):
        payload = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    sent_headers = headers
    if isinstance(payload, Body):
        # Sent piece by piece; the length keeps it one plain body.
        sent_headers = {**headers, "Content-Length": str(payload.length)}
    client = _client(endpoint.timeout_seconds)
    limits = endpoint.limits
    for number in range(1, endpoint.attempts + 1):
        if should_stop():
            raise Cancelled
        wait = None
        try:
            with limiter.slot(limits, should_stop=should_stop) as held:
                started = datetime.now(UTC)
                t0 = time.perf_counter()
                try:
                    response = client.post(url, content=payload, headers=sent_headers)
                    text = response.text
                    status = response.status_code
                    error = ""
                except httpx.TimeoutException:
                    status, text, error = None, "", f"timeout after {endpoint.timeout_seconds} s"
                except httpx.HTTPError as exc:
                    status, text, error = None, "", f"connection error ({type(exc).__name__})"
                latency = int((time.perf_counter() - t0) * 1000)
                data = None
                if status == 200:
                    try:
                        data = json.loads(text)
                    except ValueError:
                        data = None
                usage = _usage(data)
                if usage:
                    held.tokens = usage.get("total_tokens", 0)
        except limiter.Stopped:
            raise Cancelled from None
        attempt = Attempt(
            started=started.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            status=status,
            latency_ms=latency,
            error=redact(error, key),
            tokens=usage,
        )
        result.attempts.append(attempt)
        result.raw_response = redact(text[:MAX_KEPT_BYTES], key)
        if status is None:
            verdict = Verdict("retry", error)
        elif status == 200:
            if data is None:
                verdict, content = Verdict("retry", "HTTP 200 whose body is not JSON"), None
            else:
                verdict, content = classify_completion(data)
                result.content = redact(content, key) if isinstance(content, str) else None
                result.returned_model = str(data.get("model") or "")[:200]
                if usage:
                    result.prompt_tokens += usage.get("prompt_tokens", 0)
                    result.completion_tokens += usage.get("completion_tokens", 0)
        else:
            verdict = classify_status(status, text)
            if status == 429:
                limiter.throttle(limits)
            wait = retry_after_seconds(response.headers.get("Retry-After"))
        if verdict.kind != "retry":
            result.verdict = Verdict(verdict.kind, redact(verdict.detail, key))
            return result
        if not attempt.error:
            attempt.error = verdict.detail
        if number < endpoint.attempts:
            _sleep(wait if wait is not None else backoff_seconds(number), should_stop)
    result.verdict = Verdict(
        "api_error",
        f"gave up after {endpoint.attempts} attempt(s); last: {result.attempts[-1].error}",
    )
    return result

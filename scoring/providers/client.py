"""One call to an OpenAI-compatible chat completions API, with retries, limits and a record of
every attempt.

Retries: on 429, 408/409/425, 5xx, timeouts and connection errors, up to the endpoint's attempts.
The wait before attempt n+1 is the provider's ``Retry-After`` when it sent one (seconds or an HTTP
date, at most ``MODEL_RETRY_AFTER_MAX_SECONDS``), otherwise "full jitter": a uniform random time
in ``[0, min(MODEL_BACKOFF_MAX_SECONDS, MODEL_BACKOFF_BASE_SECONDS * 2**(n-1))]``. Redirects are
never followed. The key is only ever in the Authorization header.

What a provider says is text from outside (``studio.text``, docs/security.md): every text kept
from an answer (the raw body, the returned model id, error details) passes ``text_clean`` in
REPLACE mode with the key as its secret, so it holds no echo of the key, no NUL and no lone
surrogate, and is bounded. The reply text is redacted and bounded too; whether it can become a
result is decided where it is parsed (``scoring.packages.contracts.parse_reply``). A body is
read up to ``MAX_READ_BYTES``: a longer reply is a ``parse_failure`` saying so, never read whole.
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
from typing import TYPE_CHECKING

from django.conf import settings

from scoring.providers import limits as limiter
from scoring.providers.addresses import base_url_check
from scoring.providers.media import Body
from scoring.providers.outcomes import Verdict, classify_completion, classify_status
from scoring.providers.secrets import api_key
from studio.text import Mode, redact, text_clean

if TYPE_CHECKING:
    import httpx2 as httpx

MAX_KEPT_CHARS = 2_000_000  # of a response body (``raw_response``)
MAX_REPLY_CHARS = 1_000_000  # of a reply's text: a longer one is a parse_failure
MAX_READ_BYTES = 16 * 1024 * 1024  # of a response body read at all
MAX_DETAIL_CHARS = 500  # of an error or a verdict's detail
MAX_MODEL_CHARS = 200  # of the returned model id (RunItem.returned_model)
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


def _kept(text: str, key: str, max_chars: int) -> str:
    """A provider's text as it may be stored (the one rule of ``studio.text``)."""
    return text_clean(text, mode=Mode.REPLACE, max_chars=max_chars, secrets=[key])


def _read(response) -> tuple[str, bool]:
    """The body as text, at most MAX_READ_BYTES of it; and whether there was more."""
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > MAX_READ_BYTES:
            del body[MAX_READ_BYTES:]
            return _decode(bytes(body), response), True
    return _decode(bytes(body), response), False


def _decode(body: bytes, response) -> str:
    try:
        return body.decode(response.charset_encoding or "utf-8", "replace")
    except LookupError:  # a charset Python does not know
        return body.decode("utf-8", "replace")


class Cancelled(Exception):
    """The run was cancelled while this call waited; nothing was decided."""


def _client(timeout: int) -> httpx.Client:
    import httpx2 as httpx  # the HTTP client is loaded by the first call, not by every command

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
    import httpx2 as httpx

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
                too_long = False
                try:
                    with client.stream(
                        "POST", url, content=payload, headers=sent_headers
                    ) as response:
                        status = response.status_code
                        text, too_long = _read(response)
                    error = ""
                except httpx.TimeoutException:
                    status, text, error = None, "", f"timeout after {endpoint.timeout_seconds} s"
                except httpx.HTTPError as exc:
                    status, text, error = None, "", f"connection error ({type(exc).__name__})"
                latency = int((time.perf_counter() - t0) * 1000)
                data = None
                if status == 200 and not too_long:
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
            error=_kept(error, key, MAX_DETAIL_CHARS),
            tokens=usage,
        )
        result.attempts.append(attempt)
        result.raw_response = _kept(text, key, MAX_KEPT_CHARS)
        if status is None:
            verdict = Verdict("retry", error)
        elif status == 200 and too_long:
            verdict = Verdict(
                "parse_failure", f"the reply is longer than {MAX_READ_BYTES:,} bytes; not read"
            )
        elif status == 200:
            if data is None:
                verdict, content = Verdict("retry", "HTTP 200 whose body is not JSON"), None
            else:
                verdict, content = classify_completion(data)
                result.content = None
                if isinstance(content, str) and len(content) > MAX_REPLY_CHARS:
                    verdict = Verdict(
                        "parse_failure",
                        f"the reply is {len(content):,} characters long; at most "
                        f"{MAX_REPLY_CHARS:,} are read",
                    )
                elif isinstance(content, str):
                    result.content = redact(content, [key])
                result.returned_model = _kept(str(data.get("model") or ""), key, MAX_MODEL_CHARS)
                if usage:
                    result.prompt_tokens += usage.get("prompt_tokens", 0)
                    result.completion_tokens += usage.get("completion_tokens", 0)
        else:
            verdict = classify_status(status, text)
            if status == 429:
                limiter.throttle(limits)
            wait = retry_after_seconds(response.headers.get("Retry-After"))
        if verdict.kind != "retry":
            result.verdict = Verdict(verdict.kind, _kept(verdict.detail, key, MAX_DETAIL_CHARS))
            return result
        if not attempt.error:
            attempt.error = _kept(verdict.detail, key, MAX_DETAIL_CHARS)
        if number < endpoint.attempts:
            _sleep(wait if wait is not None else backoff_seconds(number), should_stop)
    last = f"gave up after {endpoint.attempts} attempt(s); last: {result.attempts[-1].error}"
    result.verdict = Verdict("api_error", _kept(last, key, MAX_DETAIL_CHARS))
    return result

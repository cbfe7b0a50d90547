"""How a provider's answer becomes an outcome (docs/models.md, "Outcomes").

- ``refusal``: the provider declined the request and will again: HTTP 400 whose error code or type
  is ``content_filter`` / ``content_policy_violation`` (or whose message says the content was
  filtered), HTTP 400 whose message says the media (image, video, file, format) is invalid,
  unsupported or too short, and HTTP 200 whose ``finish_reason`` is ``content_filter`` or whose
  message carries a ``refusal``;
- retried: 408, 409, 425, 429, every 5xx, timeouts and connection errors (``api_error`` once the
  attempts are used up);
- ``api_error`` at once: every other status (400, 401, 403, 404, 422, ...), a redirect (never
  followed) and a 200 whose body is not a chat completion;
- ``parse_failure``: a 200 cut off at the token limit (``finish_reason`` ``length``), and any
  reply that is not exactly one object of the package's contract (decided by the caller).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

RETRY_STATUSES = {408, 409, 425, 429}
REFUSAL_CODES = {"content_filter", "content_policy_violation", "content_filtered"}
_FILTER_WORDS = re.compile(r"content[ _-]?(filter|policy|management)|safety system", re.I)
_MEDIA_WORDS = re.compile(
    r"(invalid|unsupported|not supported|could not (be )?(process|decode|read)|cannot (process|"
    r"decode|read)|too short|corrupt|unable to (process|decode|read))\W+(\w+\W+){0,4}?"
    r"(image|video|media|file|format|frame|mime|url)s?\b"
    r"|(image|video|media|file|format|frame|mime)s?\W+(\w+\W+){0,4}?(is |are )?(invalid|"
    r"unsupported|not supported|too short|corrupt|could not be (processed|decoded|read))",
    re.I,
)


@dataclass(frozen=True)
class Verdict:
    kind: str  # "reply", "refusal", "retry", "api_error", "parse_failure"
    detail: str = ""


def _error_fields(body: str) -> tuple[str, str, str]:
    try:
        data = json.loads(body)
    except (ValueError, TypeError):
        return "", "", body[:500]
    error = data.get("error", data) if isinstance(data, dict) else {}
    if not isinstance(error, dict):
        return "", "", str(error)[:500]
    code = str(error.get("code") or "")
    kind = str(error.get("type") or "")
    message = str(error.get("message") or "")
    return code.lower(), kind.lower(), message


def classify_status(status: int, body: str) -> Verdict:
    """The verdict on a non-200 answer."""
    if status == 400:
        code, kind, message = _error_fields(body)
        if code in REFUSAL_CODES or kind in REFUSAL_CODES or _FILTER_WORDS.search(message):
            # Named by the refusal code the provider sent, else by its own code unless that only
            # repeats the status ("HTTP 400 400"), else as what the message says it is.
            refusal = [x for x in (code, kind) if x in REFUSAL_CODES]
            own = [code] if code and code != str(status) else []
            name = (refusal or own or ["content filter"])[0]
            return Verdict("refusal", f"HTTP 400 {name}: {message[:200]}")
        if _MEDIA_WORDS.search(message) or "invalid_image" in code or "invalid_video" in code:
            return Verdict("refusal", f"HTTP 400, media rejected: {message[:200]}")
        return Verdict("api_error", f"HTTP 400: {message[:200]}")
    if status in RETRY_STATUSES or status >= 500:
        return Verdict("retry", f"HTTP {status}")
    if 300 <= status < 400:
        return Verdict("api_error", f"HTTP {status}: redirects are not followed")
    _code, _kind, message = _error_fields(body)
    return Verdict("api_error", f"HTTP {status}: {message[:200]}")


def classify_completion(data) -> tuple[Verdict, str | None]:
    """The verdict on a 200 answer and the reply text (for ``reply`` and ``parse_failure``)."""
    try:
        choice = data["choices"][0]
        message = choice.get("message") or {}
        finish = choice.get("finish_reason")
        content = message.get("content")
    except (KeyError, IndexError, TypeError, AttributeError):
        return Verdict("api_error", "HTTP 200 without a chat completion in its body"), None
    if finish == "content_filter":
        return Verdict("refusal", "finish_reason content_filter"), content
    if message.get("refusal"):
        return Verdict("refusal", f"refusal: {str(message['refusal'])[:200]}"), content
    if finish == "length":
        return Verdict("parse_failure", "the reply was cut off (finish_reason length)"), content
    if content is not None and not isinstance(content, str):
        return Verdict("api_error", "HTTP 200 whose message content is not text"), None
    return Verdict("reply"), content

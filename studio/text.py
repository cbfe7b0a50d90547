"""The one rule for text from outside the studio (docs/security.md, "Text from outside").

Every string the studio stores that came from outside — a model provider's answer, an import
file, a draft or a form — passes ``text_clean`` (one string) or ``json_clean`` (every key and
string of a JSON value) on its way in. The rule has three parts:

(a) **NUL and surrogates.** U+0000 (PostgreSQL stores it in neither text nor JSON) and the
    surrogate code points U+D800 to U+DFFF (a JSON ``"\\ud800"`` makes one; no UTF-8 text can hold
    it) are handled by the caller's ``mode``:

    - ``Mode.REFUSE``, for text people give (import files, drafts, forms): ``TextRefused`` names
      the place and the character, the caller answers with that reason and writes nothing;
    - ``Mode.REPLACE``, for text a provider gives (raw responses, error bodies, model ids):
      each such character becomes U+FFFD, so the record of what the provider said is kept.

(b) **Secrets.** Every form in which a provider could echo a secret the caller names (the
    endpoint's API key) becomes ``[redacted]``: plain, JSON-escaped (``\\u0073k-…``, also mixed
    with plain characters and escaped twice), URL-encoded (``%73k-…``), and base64 of the key or
    of ``Bearer <key>`` (standard and URL-safe alphabets, at any alignment inside a longer
    base64 text). A key of 16 characters or more also loses any 8-character run of it, in any of
    those escapings: providers quote keys in part (``sk-abc…wxyz``).

(c) **Length.** ``Mode.REFUSE`` refuses a string longer than ``max_chars``; ``Mode.REPLACE``
    keeps its start and says it was cut and how long it was, all within ``max_chars``.

The module imports nothing of the apps (scoring, review, …): callers pass the secrets.
"""

from __future__ import annotations

import base64
import math
import re
from bisect import bisect_right
from collections.abc import Iterable
from enum import StrEnum
from functools import lru_cache

__all__ = [
    "MAX_CHARS",
    "MAX_DEPTH",
    "REDACTED",
    "REPLACEMENT",
    "Mode",
    "TextRefused",
    "json_clean",
    "redact",
    "text_clean",
    "text_problem",
]

REDACTED = "[redacted]"
REPLACEMENT = "\ufffd"
MAX_CHARS = 100_000  # a string's default bound; callers pass their field's
MAX_DEPTH = 64  # nesting of a JSON value's default bound
PARTIAL_KEY_MIN = 16  # keys this long also lose any quoted run of ...
PARTIAL_RUN = 8  # ... this many characters
_BAD = re.compile("[\x00\ud800-\udfff]")
# What a provider may have escaped: JSON \uXXXX (escaped once or more), JSON \/ and URL %XX.
_ESCAPE = re.compile(r"\\+u([0-9a-fA-F]{4})|\\+(/)|%([0-9a-fA-F]{2})")


class Mode(StrEnum):
    REFUSE = "refuse"  # people's text: refused with the reason
    REPLACE = "replace"  # providers' text: NUL and surrogates become U+FFFD, too long is cut


class TextRefused(ValueError):
    """A string cannot be stored: ``reason`` says why, ``where`` names the place (a field, a
    JSON path such as ``$.edits[2].text``)."""

    def __init__(self, reason: str, *, where: str = ""):
        self.reason, self.where = reason, where
        shown = where if len(where) <= 60 else f"{where[:40]}…"  # a path deep in nesting
        super().__init__(f"{shown} {reason}" if where else reason)


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot be stored as it is (its first NUL or surrogate), or None."""
    found = _BAD.search(value)
    if found is None:
        return None
    char, at = found.group(), found.start() + 1
    if char == "\x00":
        return f"holds a NUL character (U+0000) at character {at}"
    return f"holds a lone surrogate (U+{ord(char):04X}) at character {at}, which is not text"


def text_clean(
    value: str,
    *,
    mode: Mode,
    max_chars: int = MAX_CHARS,
    secrets: Iterable[str] = (),
    where: str = "",
) -> str:
    """``value`` as it may be stored, under the rule above (``TextRefused`` in REFUSE mode)."""
    if not isinstance(value, str):
        raise TypeError(f"text_clean takes a str, not {type(value).__name__}")
    secrets = _secrets(secrets)
    if mode == Mode.REFUSE:
        problem = text_problem(value)
        if problem is not None:
            raise TextRefused(problem, where=where)
        if len(value) > max_chars:
            raise TextRefused(
                f"is {len(value):,} characters long; at most {max_chars:,}", where=where
            )
        return redact(value, secrets)
    total = len(value)
    if total > max_chars:
        # Redact a little past the bound (an echo across it is still found), then cut.
        value = value[: max_chars + max((len(s) * 6 for s in secrets), default=0)]
    value = _BAD.sub(REPLACEMENT, redact(value, secrets))
    if total > max_chars:
        value = _cut(value, max_chars, total)
    return value


def json_clean(
    value,
    *,
    mode: Mode,
    max_chars: int = MAX_CHARS,
    max_depth: int = MAX_DEPTH,
    secrets: Iterable[str] = (),
    where: str = "$",
):
    """A copy of the JSON value ``value`` (dicts, lists, strings, numbers, booleans, None) whose
    every key and string passed ``text_clean``. Deeper nesting than ``max_depth`` and floats that
    are not finite (PostgreSQL's JSON holds neither NaN nor Infinity) are refused, or in REPLACE
    mode become a note and None."""
    return _walk(value, mode, max_chars, max_depth, _secrets(secrets), where, 0)


def _walk(value, mode, max_chars, max_depth, secrets, where, depth):
    if isinstance(value, str):
        return text_clean(value, mode=mode, max_chars=max_chars, secrets=secrets, where=where)
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        if mode == Mode.REFUSE:
            raise TextRefused(f"is {value}, not a finite number", where=where)
        return None
    if isinstance(value, dict | list | tuple):
        if depth >= max_depth:
            if mode == Mode.REFUSE:
                raise TextRefused(f"is nested deeper than {max_depth} levels", where=where)
            return f"[nested deeper than {max_depth} levels; not kept]"
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                if not isinstance(key, str):
                    raise TypeError(f"{where}: a JSON key is a str, not {type(key).__name__}")
                name = text_clean(
                    key, mode=mode, max_chars=max_chars, secrets=secrets, where=f"{where} key"
                )
                place = f"{where}.{name}" if _PLAIN_KEY.match(name) else f"{where}[{name!r}]"
                out[name] = _walk(item, mode, max_chars, max_depth, secrets, place, depth + 1)
            return out
        return [
            _walk(item, mode, max_chars, max_depth, secrets, f"{where}[{n}]", depth + 1)
            for n, item in enumerate(value)
        ]
    raise TypeError(f"{where}: {type(value).__name__} is not a JSON value")


_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,40}$")


def _cut(value: str, max_chars: int, total: int) -> str:
    note = f" [… cut; {total:,} characters in all]"
    if max_chars <= len(note) * 2:
        return value[:max_chars]
    return value[: max_chars - len(note)] + note


def _secrets(secrets: Iterable[str]) -> tuple[str, ...]:
    if isinstance(secrets, str):
        raise TypeError("secrets is a list of strings, not one string")
    return tuple(s for s in secrets if s)


# --- redaction ------------------------------------------------------------------------------------


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every form of every secret (see the module's rule (b)) as ``[redacted]``."""
    secrets = _secrets(secrets)
    if not text or not secrets:
        return text
    decoded, to_original = _decoded(text)
    views = [(decoded, to_original)]
    if decoded is not text:  # a secret may hold '%' or '\\' itself: look in the text as it is too
        views.append((text, lambda start, end: (start, end)))
    spans = []
    for secret in secrets:
        for form in _forms(secret):
            for view, original in views:
                start = view.find(form)
                while start != -1:
                    spans.append(original(start, start + len(form)))
                    start = view.find(form, start + 1)
    if not spans:
        return text
    out, last = [], 0
    for start, end in _merged(spans):
        out += [text[last:start], REDACTED]
        last = end
    out.append(text[last:])
    return "".join(out)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(s, e) for s, e in merged]


def _decoded(text: str):
    """The text with its escapes (``\\uXXXX``, ``\\/``, ``%XX``) decoded, and a function mapping a
    span of it back to the span of ``text`` it came from (an escape maps to all of itself)."""
    if "\\" not in text and "%" not in text:
        return text, lambda start, end: (start, end)
    pieces: list[str] = []
    view_starts: list[int] = []  # where each escape sits in the view ...
    text_spans: list[tuple[int, int]] = []  # ... and in the text
    shift, last = 0, 0  # view index = text index - shift, between escapes
    for found in _ESCAPE.finditer(text):
        hex4, slash, hex2 = found.groups()
        char = chr(int(hex4, 16)) if hex4 else slash if slash else chr(int(hex2, 16))
        pieces.append(text[last : found.start()])
        view_starts.append(found.start() - shift)
        text_spans.append(found.span())
        pieces.append(char)
        shift += found.end() - found.start() - 1
        last = found.end()
    if not view_starts:
        return text, lambda start, end: (start, end)
    pieces.append(text[last:])

    grown = [0]  # grown[i]: how much longer the text is than the view before escape i
    for start, end in text_spans:
        grown.append(grown[-1] + end - start - 1)

    def original(start: int, end: int) -> tuple[int, int]:
        n = bisect_right(view_starts, start) - 1
        at_escape = n >= 0 and view_starts[n] == start
        first = text_spans[n][0] if at_escape else start + grown[n + 1]
        n = bisect_right(view_starts, end - 1) - 1
        if n >= 0 and view_starts[n] == end - 1:
            return first, text_spans[n][1]
        return first, end + grown[n + 1]

    return "".join(pieces), original


@lru_cache(maxsize=64)
def _forms(secret: str) -> tuple[str, ...]:
    """The plain strings to look for in a decoded text: the secret, its base64 forms and, for a
    long one, every run of PARTIAL_RUN characters of it."""
    forms = {secret}
    raw = secret.encode("utf-8")
    for data in (raw, b"Bearer " + raw):
        forms.update(f for f in _base64_inner(data) if len(f) >= PARTIAL_RUN)
    if len(secret) >= PARTIAL_KEY_MIN:
        forms.update(secret[i : i + PARTIAL_RUN] for i in range(len(secret) - PARTIAL_RUN + 1))
    # Longest first: a later, shorter form found inside a longer one merges into its span.
    return tuple(sorted(forms, key=len, reverse=True))


def _base64_inner(data: bytes) -> set[str]:
    """The base64 characters that encode ``data`` whatever precedes it in a longer base64 text:
    for each of the three alignments, the characters made of ``data``'s bits alone."""
    out = set()
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + data).decode("ascii")
        first = -(-8 * shift // 6)  # ceil: the first character with no padding bits in it
        last = (8 * (shift + len(data))) // 6  # the characters wholly inside data's bits
        inner = encoded[first:last]
        out.add(inner)
        out.add(inner.translate(str.maketrans("+/", "-_")))
    return out

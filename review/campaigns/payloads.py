"""The one check of what a participant sends to a draft or submit endpoint, before any kind reads
it: the item pages of every kind (``/<kind>/i/<token>/draft|submit``) and the campaign API
(``/api/review/assignments/<token>/draft|submit|supersede/``) parse bodies with ``parse_json``
and the campaign services pass every payload through ``check_payload``, so a kind's rules only
ever see plain JSON within these bounds and a malformed body is a 400 with a reason, never a 500.

The bounds (docs/review.md, "Payloads"):

- the body is UTF-8 JSON of at most ``MAX_BODY_BYTES``; no duplicate keys, no ``NaN`` or
  ``Infinity``, no number literal longer than ``MAX_NUMBER_DIGITS`` digits;
- objects and arrays nest at most ``MAX_DEPTH`` levels, hold at most ``MAX_ITEMS`` entries;
- integers lie within ±(2**53 - 1) (what a browser's numbers hold exactly), other numbers are
  finite;
- every text (keys too) passes ``text_problem``: no NUL, no lone surrogate, at most
  ``MAX_TEXT`` characters;
- the whole payload is at most ``PAYLOAD_MAX_BYTES`` as UTF-8 JSON.

A kind's own typed helpers live here too (``whole_number``), so "a number" means the same on
every page: an ASCII-digit string is read as a number, "²" or a 5,000-digit string is not.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping

from django.core.exceptions import RequestDataTooBig, ValidationError

from studio.canonical import MAX_SAFE_INTEGER

MAX_BODY_BYTES = 512 * 1024
PAYLOAD_MAX_BYTES = 256 * 1024
MAX_DEPTH = 10
MAX_ITEMS = 1000
MAX_TEXT = 20_000
MAX_NUMBER_DIGITS = 20
MAX_PROBLEMS = 10
_ASCII_WHOLE = re.compile(r"[0-9]{1,9}")


class _Refused(Exception):
    """Raised from inside the JSON decoder's hooks; becomes a ValidationError."""


def text_problem(value: str, *, limit: int = MAX_TEXT) -> str | None:
    """What is wrong with a text from outside, or None: a NUL character (no database column
    stores it), a lone surrogate (not a character: it cannot be written as UTF-8), or more than
    ``limit`` characters. The one text check of this layer."""
    if "\x00" in value:
        return "contains a NUL character (U+0000)"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a lone surrogate (an unpaired U+D800-U+DFFF), which is not text"
    if len(value) > limit:
        return f"is longer than {limit} characters"
    return None


def _refuse_constant(name: str):
    raise _Refused(f"{name} is not a number JSON allows")


def _parse_int(literal: str) -> int:
    if len(literal.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise _Refused(f"a number has more than {MAX_NUMBER_DIGITS} digits")
    return int(literal)


def _parse_float(literal: str) -> float:
    if len(literal) > MAX_NUMBER_DIGITS + 10:
        raise _Refused(f"a number has more than {MAX_NUMBER_DIGITS} digits")
    return float(literal)


def _no_duplicates(pairs: list) -> dict:
    out = {}
    for key, value in pairs:
        if key in out:
            shown = key if text_problem(key, limit=40) is None else "…"
            raise _Refused(f"the key {shown!r} appears twice in one object")
        out[key] = value
    return out


def parse_json(raw: bytes) -> object:
    """The body's JSON value, or a ValidationError ``{"detail": [reason]}``."""
    if len(raw) > MAX_BODY_BYTES:
        raise ValidationError({"detail": f"The body is larger than {MAX_BODY_BYTES} bytes."})
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValidationError({"detail": f"The body is not UTF-8 (byte {exc.start})."}) from None
    try:
        return json.loads(
            text,
            parse_constant=_refuse_constant,
            parse_int=_parse_int,
            parse_float=_parse_float,
            object_pairs_hook=_no_duplicates,
        )
    except _Refused as exc:
        raise ValidationError({"detail": f"The body is not accepted: {exc}."}) from None
    except RecursionError:
        raise ValidationError(
            {"detail": f"The body nests deeper than {MAX_DEPTH} levels."}
        ) from None
    except ValueError as exc:  # JSONDecodeError, and int() refusing an oversized literal
        raise ValidationError({"detail": f"The body is not JSON ({exc})."}) from None


def request_body(request) -> dict:
    """A page's JSON request body as an object (a ValidationError says what is wrong)."""
    try:
        raw = request.body or b"{}"
    except RequestDataTooBig:
        raise ValidationError(
            {"detail": f"The body is larger than {MAX_BODY_BYTES} bytes."}
        ) from None
    data = parse_json(raw)
    if not isinstance(data, dict):
        raise ValidationError({"detail": "Send a JSON object."})
    return data


def _where(path: tuple) -> str:
    parts = ["payload"]
    for step in path:
        if isinstance(step, int):
            parts.append(str(step))
        else:
            parts.append(step if text_problem(step, limit=40) is None and step else "…")
    return ".".join(parts)


def value_problems(value, *, name: str = "payload") -> list[str]:
    """Every bound ``value`` breaks, each naming where (``payload.criteria.C1.comment: …``);
    at most ``MAX_PROBLEMS``. Walks iteratively, so no depth can exhaust the stack."""
    problems: list[str] = []
    stack: list[tuple[object, tuple, int]] = [(value, (), 0)]
    while stack and len(problems) < MAX_PROBLEMS:
        item, path, depth = stack.pop()
        where = _where(path).replace("payload", name, 1)
        if item is None or isinstance(item, bool):
            continue
        if isinstance(item, str):
            problem = text_problem(item)
            if problem:
                problems.append(f"{where}: the text {problem}.")
        elif isinstance(item, int):
            if not -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                problems.append(f"{where}: a whole number lies within ±(2**53 - 1).")
        elif isinstance(item, float):
            if not math.isfinite(item) or abs(item) > MAX_SAFE_INTEGER:
                problems.append(f"{where}: a number is finite and within ±(2**53 - 1).")
        elif isinstance(item, Mapping | list):
            if depth >= MAX_DEPTH:
                problems.append(f"{where}: objects and arrays nest at most {MAX_DEPTH} levels.")
                continue
            if len(item) > MAX_ITEMS:
                problems.append(f"{where}: at most {MAX_ITEMS} entries.")
                continue
            if isinstance(item, list):
                entries = [((*path, i), v) for i, v in enumerate(item)]
            else:
                entries = []
                for key, v in item.items():
                    if not isinstance(key, str):
                        problems.append(f"{where}: object keys are text.")
                        continue
                    problem = text_problem(key, limit=200)
                    if problem:
                        problems.append(f"{where}: a key {problem}.")
                        continue
                    entries.append(((*path, key), v))
            stack.extend((v, p, depth + 1) for p, v in reversed(entries))
        else:
            problems.append(f"{where}: not a JSON value ({type(item).__name__}).")
    return problems


def check_payload(payload, *, name: str = "payload") -> dict:
    """The payload if it is a JSON object within every bound; else a ValidationError
    ``{name: [problems]}`` (nothing is written then)."""
    if not isinstance(payload, Mapping):
        raise ValidationError({name: "Send an object."})
    problems = value_problems(payload, name=name)
    if not problems:
        size = len(json.dumps(payload, ensure_ascii=False).encode("utf-8"))
        if size > PAYLOAD_MAX_BYTES:
            problems.append(f"{name}: at most {PAYLOAD_MAX_BYTES} bytes as JSON.")
    if problems:
        raise ValidationError({name: problems})
    return dict(payload)


def check_text(value, *, name: str, limit: int = MAX_TEXT) -> str:
    """A single text field of a request (a part name, a reason) within the text bounds."""
    if not isinstance(value, str):
        raise ValidationError({name: "Send text."})
    problem = text_problem(value, limit=limit)
    if problem:
        raise ValidationError({name: f"The text {problem}."})
    return value


def whole_number(value, *, low: int, high: int) -> int | None:
    """``value`` as a whole number from ``low`` to ``high``, or None: an integer (not a
    boolean) or a text of ASCII digits (what a form field sends). Never raises: "²", "٣" or a
    5,000-digit text are simply not numbers here."""
    if isinstance(value, str):
        value = value.strip()
        if not _ASCII_WHOLE.fullmatch(value):
            return None
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        return None
    return value

"""HTTP responses for media files: byte ranges (206) so players can seek, strict headers, and the
hand-off to the web server in production.

Production (settings from the environment): ``MEDIA_SENDFILE=nginx`` answers with
``X-Accel-Redirect: <MEDIA_SENDFILE_PREFIX><storage name>`` for an ``internal`` nginx location
aliased to MEDIA_ROOT; ``MEDIA_SENDFILE=apache`` answers with ``X-Sendfile: <absolute path>``
(mod_xsendfile, lighttpd). Django still does every access check and sets the headers; the web
server only streams the bytes and answers Range itself. See docs/media.md.
"""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings
from django.http import HttpResponse, StreamingHttpResponse

CHUNK_BYTES = 256 * 1024
# ASCII digits only: ``\d`` would accept other scripts' digits, which int() then reads.
_RANGE_RE = re.compile(r"^bytes=([0-9]*)-([0-9]*)$", re.ASCII)
# A byte position never needs more digits than this (10**18 bytes is an exabyte). Longer digit
# strings are not converted at all: int() on thousands of digits is slow and, past Python's
# limit of 4,300 digits, raises instead of answering.
MAX_RANGE_DIGITS = 18
_BEYOND_ANY_FILE = 10**MAX_RANGE_DIGITS


def _position(digits: str) -> int:
    """A byte position from a run of ASCII digits, saturated at a value past every file."""
    stripped = digits.lstrip("0") or "0"
    return int(stripped) if len(stripped) <= MAX_RANGE_DIGITS else _BEYOND_ANY_FILE


def _security_headers(response: HttpResponse, *, content_type: str, max_age: int) -> None:
    response["Content-Type"] = content_type
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Disposition"] = "inline"
    response["Cache-Control"] = f"private, max-age={max(0, max_age)}"
    response["Referrer-Policy"] = "no-referrer"
    response["Accept-Ranges"] = "bytes"


def _read(path: Path, start: int, length: int):
    with open(path, "rb") as handle:
        handle.seek(start)
        while length > 0:
            chunk = handle.read(min(CHUNK_BYTES, length))
            if not chunk:
                break
            length -= len(chunk)
            yield chunk


def parse_range(header: str, size: int) -> tuple[int, int] | str | None:
    """(first, last) byte of a single satisfiable range; None to send everything (no header,
    or one we do not serve partially such as several ranges); "unsatisfiable" for 416.

    Never raises: every header either maps to one of these answers or is ignored (200)."""
    match = _RANGE_RE.match(header.strip()) if header else None
    if not match or (not match[1] and not match[2]):
        return None
    if size <= 0:  # an empty file has no byte to send
        return "unsatisfiable"
    if not match[1]:  # suffix: the last N bytes
        length = _position(match[2])
        if length == 0:
            return "unsatisfiable"
        return max(0, size - length), size - 1
    first = _position(match[1])
    last = _position(match[2]) if match[2] else size - 1
    if first >= size or last < first:
        return "unsatisfiable"
    return first, min(last, size - 1)


def file_response(
    request, *, path: Path, storage_name: str, content_type: str, max_age: int
) -> HttpResponse:
    mode = settings.MEDIA_SENDFILE
    if mode in ("nginx", "apache"):
        response = HttpResponse()
        _security_headers(response, content_type=content_type, max_age=max_age)
        if mode == "nginx":
            prefix = settings.MEDIA_SENDFILE_PREFIX
            response["X-Accel-Redirect"] = prefix.rstrip("/") + "/" + storage_name
        else:
            response["X-Sendfile"] = str(path.resolve())
        return response

    size = path.stat().st_size
    wanted = parse_range(request.headers.get("Range", ""), size)
    if wanted == "unsatisfiable":
        response = HttpResponse(status=416)
        _security_headers(response, content_type=content_type, max_age=0)
        response["Content-Range"] = f"bytes */{size}"
        return response
    first, last = wanted if wanted else (0, size - 1)
    length = last - first + 1 if size else 0
    body = _read(path, first, length) if request.method != "HEAD" else iter(())
    response = StreamingHttpResponse(body, status=206 if wanted else 200)
    _security_headers(response, content_type=content_type, max_age=max_age)
    response["Content-Length"] = str(length)
    if wanted:
        response["Content-Range"] = f"bytes {first}-{last}/{size}"
    return response

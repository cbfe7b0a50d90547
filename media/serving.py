"""Sending stored media files to a browser: HTTP Range (so the player can seek), nosniff, and
the production hand-off to the front web server.

Callers check access first (selectors / tokens); this module only sends bytes.

Production: with MEDIA_SENDFILE=nginx the response carries ``X-Accel-Redirect:
<MEDIA_SENDFILE_PREFIX><path relative to MEDIA_ROOT>`` and no body, and nginx serves the file
from an ``internal`` location (Range included); with MEDIA_SENDFILE=apache it carries
``X-Sendfile: <absolute path>`` for mod_xsendfile. docs/media.md shows the server snippets.
"""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings
from django.http import FileResponse, HttpRequest, HttpResponse, StreamingHttpResponse

_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")
_CHUNK = 256 * 1024


def _iter_range(path: Path, start: int, length: int):
    with path.open("rb") as fh:
        fh.seek(start)
        remaining = length
        while remaining > 0:
            chunk = fh.read(min(_CHUNK, remaining))
            if not chunk:
                break
            remaining -= len(chunk)
            yield chunk


def parse_range(header: str, size: int) -> tuple[int, int] | None:
    """The inclusive byte range a single-range ``Range`` header asks for, or None if unusable.

    Raises ValueError when the range is syntactically valid but unsatisfiable (416).
    """
    match = _RANGE.match(header.strip())
    if not match:
        return None  # multi-range or malformed: answer with the whole file, as RFC 9110 allows
    first, last = match.groups()
    if first == "" and last == "":
        return None
    if first == "":
        suffix = int(last)
        if suffix == 0:
            raise ValueError("empty suffix range")
        return max(size - suffix, 0), size - 1
    start = int(first)
    end = size - 1 if last == "" else min(int(last), size - 1)
    if start >= size or end < start:
        raise ValueError("range starts past the end")
    return start, end


def file_response(
    request: HttpRequest, path: Path, *, content_type: str, filename: str | None = None
) -> HttpResponse:
    """A 200 or 206 response for ``path`` (which must lie under MEDIA_ROOT)."""
    path = Path(path)
    size = path.stat().st_size
    mode = getattr(settings, "MEDIA_SENDFILE", "none")
    if mode == "nginx":
        response = HttpResponse(content_type=content_type)
        relative = path.resolve().relative_to(Path(settings.MEDIA_ROOT).resolve())
        response["X-Accel-Redirect"] = f"{settings.MEDIA_SENDFILE_PREFIX}{relative.as_posix()}"
    elif mode == "apache":
        response = HttpResponse(content_type=content_type)
        response["X-Sendfile"] = str(path.resolve())
    else:
        header = request.headers.get("Range")
        byte_range = None
        if header:
            try:
                byte_range = parse_range(header, size)
            except ValueError:
                response = HttpResponse(status=416)
                response["Content-Range"] = f"bytes */{size}"
                response["X-Content-Type-Options"] = "nosniff"
                return response
        if byte_range is None:
            response = FileResponse(path.open("rb"), content_type=content_type)
            response["Content-Length"] = str(size)
        else:
            start, end = byte_range
            length = end - start + 1
            response = StreamingHttpResponse(
                _iter_range(path, start, length), status=206, content_type=content_type
            )
            response["Content-Range"] = f"bytes {start}-{end}/{size}"
            response["Content-Length"] = str(length)
    response["Accept-Ranges"] = "bytes"
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, max-age=300"
    if filename:
        response["Content-Disposition"] = f'inline; filename="{filename}"'
    return response

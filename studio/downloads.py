"""The header of every download: ``Content-Disposition`` as RFC 6266 says, so that no name (a
run's, a campaign's, a study's) can break it.

``filename*`` carries the name exactly (UTF-8, percent-encoded, RFC 8187); ``filename`` is a
plain-ASCII stand-in for old clients, every character outside ``A-Z a-z 0-9 . _ -`` written as
``_``. Neither can hold a quote, a backslash, a semicolon or a line break.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from django.http import HttpResponseBase

from studio.text import Mode, text_clean

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def content_disposition(filename: str, *, inline: bool = False) -> str:
    """The ``Content-Disposition`` value for a download named ``filename``."""
    name = text_clean(filename, mode=Mode.REPLACE, max_chars=200) or "download"
    fallback = _UNSAFE.sub("_", name)
    kind = "inline" if inline else "attachment"
    return f"{kind}; filename=\"{fallback}\"; filename*=UTF-8''{quote(name, safe='')}"


def as_download(response: HttpResponseBase, filename: str) -> HttpResponseBase:
    """``response`` as a download named ``filename`` (and never sniffed as another type)."""
    response["Content-Disposition"] = content_disposition(filename)
    response["X-Content-Type-Options"] = "nosniff"
    return response

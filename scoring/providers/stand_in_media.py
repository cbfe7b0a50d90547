"""What media reached the stand-in provider: which modalities a request carried.

``picture``: an ``image_url`` part, or a ``video_url`` part. ``sound``: an ``input_audio`` part
whose data decodes to a RIFF/WAVE or FLAC file, or a video sent as a data URL whose MP4 holds a
sound track (a track whose handler, the ``hdlr`` box, says ``soun``). A video sent as a URL is
fetched, as a model server would, when it is on this machine (the stand-in listens on 127.0.0.1
only and fetches nothing else; a URL elsewhere counts as picture only). The stand-in reads these
to log what came and to match its scripted rules on them; its answers hash the media parts as
they came, sound included.
"""

from __future__ import annotations

import base64
import binascii
import re
import urllib.request
from urllib.parse import urlsplit

PICTURE, SOUND = "picture", "sound"
# An ISO BMFF handler box: size, "hdlr", version and flags, pre_defined, then the handler type.
_SOUND_HANDLER = re.compile(rb"hdlr.{8}soun", re.DOTALL)
LOOPBACK = ("127.0.0.1", "localhost", "::1")
FETCH_LIMIT = 256 * 1024 * 1024  # bytes read of a fetched video at most
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through a proxy


def _decoded(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=False)
    except (binascii.Error, ValueError):
        return b""


def sound_in_audio(data: str) -> bool:
    """Whether an ``input_audio`` part's base64 holds a WAV or FLAC file."""
    head = _decoded(data[:64])
    return (head[:4] == b"RIFF" and head[8:12] == b"WAVE") or head[:4] == b"fLaC"


def _fetched(url: str) -> bytes:
    """The bytes a video URL on this machine serves (empty for any other URL, or on failure)."""
    try:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or parts.hostname not in LOOPBACK:
            return b""
        with _opener.open(url, timeout=30) as response:
            return response.read(FETCH_LIMIT)
    except (OSError, ValueError):
        return b""


def sound_in_video(url: str) -> bool:
    """Whether a video (a data URL, or a URL on this machine) is an MP4 with a sound track."""
    if url.startswith("data:"):
        data = _decoded(url.split(";base64,", 1)[1]) if ";base64," in url else b""
    else:
        data = _fetched(url)
    return _SOUND_HANDLER.search(data) is not None


def modalities(body: dict) -> list[str]:
    """The modalities of the media parts in a request's user messages, sorted."""
    found: set[str] = set()
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        for part in content if isinstance(content, list) else []:
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "image_url":
                found.add(PICTURE)
            elif kind == "video_url":
                found.add(PICTURE)
                if sound_in_video(str((part.get("video_url") or {}).get("url") or "")):
                    found.add(SOUND)
            elif kind == "input_audio" and sound_in_audio(
                str((part.get("input_audio") or {}).get("data") or "")
            ):
                found.add(SOUND)
    return sorted(found)

"""What media reached the stand-in provider: which modalities a request carried.

``picture``: an ``image_url`` part, or a ``video_url`` part. ``sound``: an ``input_audio`` part
whose data decodes to a RIFF/WAVE or FLAC file, or a video sent as a data URL whose MP4 holds a
sound track (a track whose handler, the ``hdlr`` box, says ``soun``). A video sent as a plain URL
is not fetched: it counts as picture only. The stand-in reads these to log what came and to match
its scripted rules on them; its answers hash the media parts as they came, sound included.
"""

from __future__ import annotations

import base64
import binascii
import re

PICTURE, SOUND = "picture", "sound"
# An ISO BMFF handler box: size, "hdlr", version and flags, pre_defined, then the handler type.
_SOUND_HANDLER = re.compile(rb"hdlr.{8}soun", re.DOTALL)


def _decoded(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=False)
    except (binascii.Error, ValueError):
        return b""


def sound_in_audio(data: str) -> bool:
    """Whether an ``input_audio`` part's base64 holds a WAV or FLAC file."""
    head = _decoded(data[:64])
    return (head[:4] == b"RIFF" and head[8:12] == b"WAVE") or head[:4] == b"fLaC"


def sound_in_video(url: str) -> bool:
    """Whether a video data URL holds an MP4 with a sound track."""
    if not url.startswith("data:") or ";base64," not in url:
        return False
    return _SOUND_HANDLER.search(_decoded(url.split(";base64,", 1)[1])) is not None


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

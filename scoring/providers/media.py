"""The media of a request, in an endpoint's interface, and the hash of exactly what is sent.

- ``frames``: every image as an ``image_url`` part holding a ``data:image/png;base64,`` URL;
- ``video_base64``: the clip as one ``video_url`` part holding a ``data:video/mp4;base64,`` URL;
- ``video_url``: the clip as one ``video_url`` part holding a short-lived opaque URL of this
  instance (for a model server on the network, such as a local vLLM).

``media_sha256`` is the SHA-256 over, for each part in order, the line ``"<mime> <length>\\n"``
followed by the part's bytes: it changes when any byte, the order, or the number of parts does.
For ``video_url`` it is computed over the file the URL serves.
"""

from __future__ import annotations

import base64
import hashlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

READ_CHUNK = 1 << 20
# hashlib releases the GIL on large buffers: the digest of a request's images is computed on
# another core while this thread base64-encodes them.
_HASHING = ThreadPoolExecutor(max_workers=2, thread_name_prefix="media-sha256")


@dataclass(frozen=True)
class MediaPayload:
    parts: list[dict]
    sha256: str
    interface: str  # frames, video_base64, video_url
    count: int  # images, or 1 for a video


def _add(digest, mime: str, data: bytes) -> None:
    digest.update(f"{mime} {len(data)}\n".encode("ascii"))
    digest.update(data)


def frames_payload(paths: list[Path], *, mime: str = "image/png") -> MediaPayload:
    digest = hashlib.sha256()
    parts = []
    prefix = f"data:{mime};base64,"
    for path in paths:
        data = Path(path).read_bytes()
        _add(digest, mime, data)
        parts.append(
            {"type": "image_url", "image_url": {"url": prefix + base64.b64encode(data).decode()}}
        )
    return MediaPayload(
        parts=parts, sha256=digest.hexdigest(), interface="frames", count=len(parts)
    )


def video_base64_payload(path: Path, *, mime: str = "video/mp4") -> MediaPayload:
    data = Path(path).read_bytes()
    digest = hashlib.sha256()
    _add(digest, mime, data)
    url = f"data:{mime};base64," + base64.b64encode(data).decode()
    return MediaPayload(
        parts=[{"type": "video_url", "video_url": {"url": url}}],
        sha256=digest.hexdigest(),
        interface="video_base64",
        count=1,
    )


def file_sha256(path: Path, *, mime: str) -> str:
    digest = hashlib.sha256()
    size = Path(path).stat().st_size
    digest.update(f"{mime} {size}\n".encode("ascii"))
    with open(path, "rb") as handle:
        while chunk := handle.read(READ_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def video_url_payload(url: str, path: Path, *, mime: str = "video/mp4") -> MediaPayload:
    return MediaPayload(
        parts=[{"type": "video_url", "video_url": {"url": url}}],
        sha256=file_sha256(path, mime=mime),
        interface="video_url",
        count=1,
    )

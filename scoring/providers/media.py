"""The media of a request, in an endpoint's interface, and the hash of exactly what is sent.

- ``frames``: every image as an ``image_url`` part holding a ``data:image/png;base64,`` URL;
- ``video_base64``: the clip as one ``video_url`` part holding a ``data:video/mp4;base64,`` URL;
- ``video_url``: the clip as one ``video_url`` part holding a short-lived opaque URL of this
  instance (for a model server on the network, such as a local vLLM).

``media_sha256`` is the SHA-256 over, for each part in order, the line ``"<mime> <length>\\n"``
followed by the 32-byte SHA-256 of the part's bytes: it changes when any byte, the order, or the
number of parts does. For ``video_url`` it is computed over the file the URL serves.

The hash comes first and the parts only when a call is made (a cache hit needs no base64). Each
file's digest is remembered by its (path, inode, size, mtime): rendered media never change in
place, and a file that did change has another stat and is hashed again.
"""

from __future__ import annotations

import base64
import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

READ_CHUNK = 1 << 20
_MEMO_SIZE = 8192
_memo: OrderedDict[tuple, tuple[int, bytes]] = OrderedDict()
_memo_lock = threading.Lock()


@dataclass
class MediaPayload:
    sha256: str
    interface: str  # frames, video_base64, video_url
    count: int  # images, or 1 for a video
    build: Callable[[], list[dict]] = field(repr=False, default=lambda: [])
    _parts: list[dict] | None = field(default=None, repr=False)

    release: Callable[[], None] = field(repr=False, default=lambda: None)

    @property
    def parts(self) -> list[dict]:
        if self._parts is None:
            self._parts = self.build()
        return self._parts


def _stat_key(path: Path) -> tuple:
    st = os.stat(path)
    return (str(path), st.st_ino, st.st_size, st.st_mtime_ns)


def _file_digest(path: Path, data: bytes | None = None) -> tuple[int, bytes, bytes | None]:
    """(size, SHA-256 digest, the bytes if they had to be read)."""
    key = _stat_key(path)
    with _memo_lock:
        known = _memo.get(key)
        if known is not None:
            _memo.move_to_end(key)
            return known[0], known[1], data
    if data is None:
        data = Path(path).read_bytes()
    found = (len(data), hashlib.sha256(data).digest())
    with _memo_lock:
        _memo[key] = found
        if len(_memo) > _MEMO_SIZE:
            _memo.popitem(last=False)
    return found[0], found[1], data


def _digest_parts(mime: str, paths: list[Path]) -> tuple[str, list[bytes | None]]:
    """The media hash of ``paths`` (see the module docstring) and any bytes read for it."""
    digest = hashlib.sha256()
    read: list[bytes | None] = []
    for path in paths:
        size, file_digest, data = _file_digest(path)
        # Bind each part's length and digest; the outer hash is over "<mime> <length>\n" and the
        # part's own SHA-256, so it changes with any byte, the order or the number of parts.
        digest.update(f"{mime} {size}\n".encode("ascii"))
        digest.update(file_digest)
        read.append(data)
    return digest.hexdigest(), read


def frames_payload(paths: list[Path], *, mime: str = "image/png") -> MediaPayload:
    paths = [Path(p) for p in paths]
    sha, read = _digest_parts(mime, paths)
    prefix = f"data:{mime};base64,"

    def build() -> list[dict]:
        parts = []
        for i, path in enumerate(paths):
            data = read[i] if i < len(read) and read[i] is not None else path.read_bytes()
            url = prefix + base64.b64encode(data).decode("ascii")
            parts.append({"type": "image_url", "image_url": {"url": url}})
        return parts

    return MediaPayload(
        sha256=sha, interface="frames", count=len(paths), build=build, release=read.clear
    )


def video_base64_payload(path: Path, *, mime: str = "video/mp4") -> MediaPayload:
    path = Path(path)
    sha, read = _digest_parts(mime, [path])

    def build() -> list[dict]:
        data = read[0] if read and read[0] is not None else path.read_bytes()
        url = f"data:{mime};base64," + base64.b64encode(data).decode("ascii")
        return [{"type": "video_url", "video_url": {"url": url}}]

    return MediaPayload(
        sha256=sha, interface="video_base64", count=1, build=build, release=read.clear
    )


def file_sha256(path: Path, *, mime: str) -> str:
    return _digest_parts(mime, [Path(path)])[0]


def video_url_payload(
    url_of: Callable[[], str], path: Path, *, mime: str = "video/mp4"
) -> MediaPayload:
    """``url_of`` mints the URL (a grant) only when a call is made."""
    return MediaPayload(
        sha256=file_sha256(path, mime=mime),
        interface="video_url",
        count=1,
        build=lambda: [{"type": "video_url", "video_url": {"url": url_of()}}],
    )

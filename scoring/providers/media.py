"""The media of a request, in an endpoint's interface, and the hash of exactly what is sent.

- ``frames``: every image as an ``image_url`` part holding a ``data:image/png;base64,`` URL;
- ``video_base64``: the clip as one ``video_url`` part holding a ``data:video/mp4;base64,`` URL;
- ``video_url``: the clip as one ``video_url`` part holding a short-lived opaque URL of this
  instance (for a model server on the network, such as a local vLLM);
- sound: one ``input_audio`` part, ``{"data": <base64 of the WAV file>, "format": "wav"}`` (the
  OpenAI-compatible shape), alone (interface ``sound``) or after the images of a frame set
  (``frames+sound``). A clip with a sound track is sent as any clip (``video_base64+sound``,
  ``video_url+sound``: the interface names the sound so the call records it).

A payload is one or several media files in order, each a part (``files_payload``).
``media_sha256`` is the SHA-256 over, for each part in order, the line ``"<mime> <length>\\n"``
followed by the 32-byte SHA-256 of the part's bytes: it changes when any byte, the order, the
type or the number of parts does (images and their sound are one hash). For ``video_url`` it is
computed over the file the URL serves.

The hash comes first and the parts only when a call is made (a cache hit needs no base64). Each
file's digest is remembered by its (path, inode, size, mtime): rendered media never change in
place, and a file that did change has another stat and is hashed again. The memo of a process
can be seeded with digests other processes recorded (``digests_seed``; ``MediaPayload.hashed``
lists the files a payload had to hash), so a worker does not hash again what the process that
created the run already hashed.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

import pybase64

READ_CHUNK = 1 << 20
_MEMO_SIZE = 32768  # files (about 200 bytes each)
_memo: OrderedDict[tuple, tuple[int, bytes]] = OrderedDict()
_memo_lock = threading.Lock()


SOUND = "+sound"  # the ending of an interface whose media carry sound besides the picture


@dataclass
class MediaPayload:
    sha256: str
    # frames, video_base64, video_url; with "+sound" when sound comes too; "sound" for sound alone
    interface: str
    count: int  # images, or 1 for a video, 0 for sound alone
    build: Callable[[], list[dict]] = field(repr=False, default=lambda: [])
    _parts: list[dict] | None = field(default=None, repr=False)

    release: Callable[[], None] = field(repr=False, default=lambda: None)
    # (stat key, size, digest) of every file this payload had to hash (not in the memo)
    hashed: list[tuple[tuple, int, bytes]] = field(default_factory=list, repr=False)
    # Data-URL media: per part its ``Source``; encoded only while the request is sent (``Body``)
    sources: list[Source] | None = field(default=None, repr=False)

    @property
    def parts(self) -> list[dict]:
        if self._parts is None:
            self._parts = self.build()
        return self._parts

    @property
    def sound(self) -> bool:
        return self.interface == "sound" or self.interface.endswith(SOUND)

    @property
    def picture(self) -> bool:
        return self.interface != "sound"

    @property
    def recording(self) -> dict:
        """What came, as a request's data may say it: images (how many), a video, or sound
        alone; ``"sound": true`` when pictures come with sound."""
        if not self.picture:
            return {"kind": "sound"}
        shown: dict = {"kind": "images", "count": self.count}
        if not self.interface.startswith("frames"):
            shown = {"kind": "video"}
        return shown | ({"sound": True} if self.sound else {})


@dataclass(frozen=True)
class Source:
    """One part of a request's media: its type (``image_url``, ``video_url``, ``input_audio``),
    what precedes the base64 in its field (``data:<mime>;base64,`` for a URL, nothing for sound),
    the file's size and a reader of its bytes; ``field`` holds the base64, ``extra`` goes beside."""

    type: str
    prefix: bytes
    size: int
    read: Callable[[], bytes]
    field: str = "url"
    extra: tuple[tuple[str, str], ...] = ()

    def part(self, value: str) -> dict:
        return {"type": self.type, self.type: {self.field: value, **dict(self.extra)}}


def _parts_of(sources: list[Source]) -> list[dict]:
    return [s.part((s.prefix + pybase64.b64encode(s.read())).decode("ascii")) for s in sources]


def base64_length(size: int) -> int:
    """Length of the padded base64 of ``size`` bytes."""
    return 4 * -(-size // 3)


class Body:
    """A JSON request body as the pieces that make it up, sent one after the other under one
    Content-Length (``length``, known before anything is encoded).

    A piece is bytes, or a file part ``(size, read)`` whose base64 is made only when the piece
    is sent: a call in flight holds one encoded image at a time, not the request's megabytes,
    and sending again (a retry) reads and encodes again. ``bytes(body)`` is the whole body."""

    def __init__(self, pieces: list):
        self.pieces = pieces
        self.length = sum(len(p) if isinstance(p, bytes) else base64_length(p[0]) for p in pieces)

    def __iter__(self):
        for piece in self.pieces:
            yield piece if isinstance(piece, bytes) else pybase64.b64encode(piece[1]())

    def __bytes__(self) -> bytes:
        return b"".join(self)


def body_bytes(make_body: Callable[[list[dict]], dict], payload: MediaPayload | None) -> bytes:
    """The JSON request body ``make_body(media parts)``, UTF-8, exactly the bytes of
    ``json.dumps(body, ensure_ascii=False)`` with the parts in it."""
    return bytes(body_pieces(make_body, payload))


def body_pieces(make_body: Callable[[list[dict]], dict], payload: MediaPayload | None) -> Body:
    """``body_bytes`` as a ``Body``: the request is sent piece by piece, so the megabytes of a
    frames request are never copied into one string, nor held while waiting for the network.

    Data URLs are megabytes: instead of turning each file's base64 into a string, copying it into
    the URL, scanning it again for JSON escapes and encoding it back to bytes, the body is
    serialised with a random marker in place of each URL and the base64 is spliced in as it is
    sent (base64 and the ``data:`` prefix never need escaping in JSON)."""
    if payload is None or payload.sources is None:
        body = make_body(payload.parts if payload is not None else [])
        return Body([json.dumps(body, ensure_ascii=False).encode("utf-8")])
    sources = payload.sources
    token = secrets.token_hex(16)
    markers = [f"{token}:{i}" for i in range(len(sources))]
    parts = [s.part(m) for s, m in zip(sources, markers, strict=True)]
    text = json.dumps(make_body(parts), ensure_ascii=False).encode("utf-8")
    pieces, at = [], 0
    for marker, source in zip(markers, sources, strict=True):
        found = text.index(marker.encode("ascii"), at)
        # What json.dumps writes for the prefix (a MIME type could hold a quote).
        escaped = json.dumps(source.prefix.decode("ascii"), ensure_ascii=False)[1:-1]
        pieces += [text[at:found], escaped.encode("ascii"), (source.size, source.read)]
        at = found + len(marker)
    pieces.append(text[at:])
    return Body(pieces)


def stat_key(path) -> tuple:
    """(path, inode, size, mtime in ns): a file with the same key has the same bytes."""
    st = os.stat(path)
    return (os.fspath(path), st.st_ino, st.st_size, st.st_mtime_ns)


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _remember(key: tuple, size: int, digest: bytes) -> None:
    with _memo_lock:
        _memo[key] = (size, digest)
        _memo.move_to_end(key)
        if len(_memo) > _MEMO_SIZE:
            _memo.popitem(last=False)


def digests_seed(entries) -> None:
    """Remember digests recorded elsewhere: ``(stat key, size, digest)`` each. An entry is used
    only while the file's stat equals its key."""
    for key, size, digest in entries:
        _remember(tuple(key), size, digest)


def digests_known(paths: list) -> bool:
    """Whether this process knows the digest of every file of ``paths`` as it is now."""
    try:
        keys = [stat_key(p) for p in paths]
    except OSError:
        return False
    with _memo_lock:
        return all(key in _memo for key in keys)


def _file_digest(path: str) -> tuple[tuple, int, bytes, bytes | None]:
    """(stat key, size, SHA-256 digest, the bytes if they had to be read)."""
    key = stat_key(path)
    with _memo_lock:
        known = _memo.get(key)
        if known is not None:
            _memo.move_to_end(key)
            return key, known[0], known[1], None
    data = _read(path)
    size, digest = len(data), hashlib.sha256(data).digest()
    _remember(key, size, digest)
    return key, size, digest, data


def _digest_parts(files: list[tuple[str, str]]) -> tuple[str, list[bytes | None], list, list]:
    """The media hash of ``files`` ((mime, path) each; see the module docstring), any bytes read
    for it, the files that had to be hashed, and every file's size."""
    digest = hashlib.sha256()
    read: list[bytes | None] = []
    hashed, sizes = [], []
    for mime, path in files:
        key, size, file_digest, data = _file_digest(path)
        # Bind each part's length and digest; the outer hash is over "<mime> <length>\n" and the
        # part's own SHA-256, so it changes with any byte, the order or the number of parts.
        digest.update(f"{mime} {size}\n".encode("ascii"))
        digest.update(file_digest)
        read.append(data)
        sizes.append(size)
        if data is not None:
            hashed.append((key, size, file_digest))
    return digest.hexdigest(), read, hashed, sizes


def _reader(read: list[bytes | None], i: int, path: str) -> Callable[[], bytes]:
    """The bytes of part ``i``: those read for hashing while they are kept, else the file."""

    def load() -> bytes:
        data = read[i] if i < len(read) else None
        return data if data is not None else _read(path)

    return load


# The ``format`` of an ``input_audio`` part, by the sound file's MIME type.
AUDIO_PART_FORMATS = {"audio/wav": "wav", "audio/flac": "flac"}


def files_payload(files: list[tuple[str, str, object]], *, interface: str) -> MediaPayload:
    """The payload of several media files sent as data, in order: ``(part type, mime, path)``
    each, the part type ``image_url``, ``video_url`` or ``input_audio``. One hash over all of
    them, exactly the bytes sent."""
    files = [(t, mime, os.fspath(p)) for t, mime, p in files]
    sha, read, hashed, sizes = _digest_parts([(mime, path) for _t, mime, path in files])
    sources = []
    for i, ((kind, mime, path), size) in enumerate(zip(files, sizes, strict=True)):
        if kind == "input_audio":
            audio_format = AUDIO_PART_FORMATS[mime.split(";", 1)[0]]
            source = Source(kind, b"", size, _reader(read, i, path), "data",
                            (("format", audio_format),))  # fmt: skip
        else:
            source = Source(kind, f"data:{mime};base64,".encode("ascii"), size,
                            _reader(read, i, path))  # fmt: skip
        sources.append(source)
    pictures = sum(t == "image_url" for t, _m, _p in files) or int(interface != "sound")
    return MediaPayload(
        sha256=sha,
        interface=interface,
        count=pictures,
        build=lambda: _parts_of(sources),
        release=read.clear,
        hashed=hashed,
        sources=sources,
    )


def frames_payload(paths: list, *, mime: str = "image/png", sound=None) -> MediaPayload:
    """The images of a frame set, then (``sound``: a WAV file) the window's sound."""
    files = [("image_url", mime, p) for p in paths]
    if sound is not None:
        files.append(("input_audio", "audio/wav", sound))
    return files_payload(files, interface="frames" + (SOUND if sound is not None else ""))


def video_base64_payload(path, *, mime: str = "video/mp4", sound: bool = False) -> MediaPayload:
    interface = "video_base64" + (SOUND if sound else "")
    return files_payload([("video_url", mime, path)], interface=interface)


def audio_payload(path, *, mime: str = "audio/wav") -> MediaPayload:
    """Sound alone, one ``input_audio`` part."""
    return files_payload([("input_audio", mime, path)], interface="sound")


def file_sha256(path, *, mime: str) -> str:
    return _digest_parts([(mime, os.fspath(path))])[0]


def video_url_payload(
    url_of: Callable[[], str], path, *, mime: str = "video/mp4", sound: bool = False
) -> MediaPayload:
    """``url_of`` mints the URL (a grant) only when a call is made."""
    return MediaPayload(
        sha256=file_sha256(path, mime=mime),
        interface="video_url" + (SOUND if sound else ""),
        count=1,
        build=lambda: [{"type": "video_url", "video_url": {"url": url_of()}}],
    )

"""The one canonical-bytes and SHA-256 code of the project (docs/manifests.md specifies it).

Canonical bytes are RFC 8785 (JSON Canonicalization Scheme) restricted to the types a manifest
holds: dict with str keys, list/tuple, str, int, bool and None. Floats are refused rather than
serialised, so no number formatting question can ever arise; times are integer microseconds.
Integers must be "safe" (|n| <= 2**53 - 1) because RFC 8785 serialises numbers as IEEE doubles.

Two hashes identify a frozen subset (main paper, appendix B.2):
- the canonical single-column sample list: every sample id followed by ``\\n``, UTF-8, ids in
  ascending order of their UTF-8 bytes, no duplicates (so a non-empty list ends with a newline and
  an empty list is zero bytes);
- the complete manifest: SHA-256 of ``canonical_bytes(manifest)``, where the manifest names the
  SHA-256 of its records file (one canonical record per line), so it covers every sample's data
  without having to hold them all in memory.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterable, Mapping

FORMAT = "intent-studio.manifest/1"
MAX_SAFE_INTEGER = 2**53 - 1

# json.dumps(..., ensure_ascii=False) escapes exactly what RFC 8785 escapes in a string:
# '"', '\\', the short forms \b \f \n \r \t and other controls below U+0020 as \u00xx (lower-case
# hex); everything else is written as UTF-8. That is why strings are delegated to it.
_dump_str = json.JSONEncoder(ensure_ascii=False).encode


def _utf16_key(key: str) -> bytes:
    # RFC 8785 sorts member names by UTF-16 code units; big-endian UTF-16 bytes compare the same
    # way. (Python's own str order differs for characters above U+FFFF.)
    return key.encode("utf-16-be", "surrogatepass")


def _encode(value, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_dump_str(value))
    elif isinstance(value, int):
        if not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            raise ValueError(f"integer {value} is outside ±(2**53 - 1), which RFC 8785 cannot hold")
        out.append(str(int(value)))
    elif isinstance(value, Mapping):
        for key in value:
            if not isinstance(key, str):
                raise TypeError(f"object keys must be text, not {type(key).__name__}")
        out.append("{")
        for i, key in enumerate(sorted(value, key=_utf16_key)):
            if i:
                out.append(",")
            out.append(_dump_str(key))
            out.append(":")
            _encode(value[key], out)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _encode(item, out)
        out.append("]")
    elif isinstance(value, float):
        raise TypeError("floats are not allowed in manifests; use integers (e.g. microseconds)")
    else:
        raise TypeError(f"{type(value).__name__} cannot appear in a manifest")


def canonical_bytes(value) -> bytes:
    """RFC 8785 bytes of ``value`` (see the module docstring for the types allowed)."""
    out: list[str] = []
    _encode(value, out)
    try:
        return "".join(out).encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate has no UTF-8 form
        raise ValueError("text contains a lone surrogate, which has no UTF-8 form") from exc


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_sample_id(sample_id: str) -> str:
    if not isinstance(sample_id, str) or not sample_id or sample_id != sample_id.strip():
        raise ValueError(f"sample id {sample_id!r} must be non-empty text without outer spaces")
    if "\n" in sample_id or "\r" in sample_id:
        raise ValueError(f"sample id {sample_id!r} must not contain a line break")
    return sample_id


def sample_list_bytes(sample_ids: Iterable[str]) -> bytes:
    """The canonical single-column sample list (sorted here, duplicates refused)."""
    ids = sorted((check_sample_id(s) for s in sample_ids), key=lambda s: s.encode("utf-8"))
    for a, b in itertools.pairwise(ids):
        if a == b:
            raise ValueError(f"sample id {a} appears twice")
    return "".join(f"{s}\n" for s in ids).encode("utf-8")


def sample_list_sha256(sample_ids: Iterable[str]) -> str:
    return sha256_hex(sample_list_bytes(sample_ids))


class RecordStream:
    """Hashes records fed in canonical order, in constant memory.

    Each record is a dict with a ``sample_id``; records must arrive in strictly ascending order of
    their sample id's UTF-8 bytes (the order the database is asked for, checked here so a collation
    surprise fails loudly instead of giving a different hash). ``add`` returns the two lines it
    hashed so a writer can put exactly those bytes on disk.
    """

    def __init__(self) -> None:
        self._samples = hashlib.sha256()
        self._records = hashlib.sha256()
        self._last: bytes | None = None
        self.count = 0

    def add(self, record: Mapping) -> tuple[bytes, bytes]:
        sample_id = check_sample_id(record["sample_id"])
        key = sample_id.encode("utf-8")
        if self._last is not None and key <= self._last:
            raise ValueError(
                f"sample {sample_id} arrived after {self._last.decode()}: records must be unique "
                "and sorted by sample id"
            )
        self._last = key
        sample_line = key + b"\n"
        record_line = canonical_bytes(record) + b"\n"
        self._samples.update(sample_line)
        self._records.update(record_line)
        self.count += 1
        return sample_line, record_line

    @property
    def sample_list_sha256(self) -> str:
        return self._samples.hexdigest()

    @property
    def records_sha256(self) -> str:
        return self._records.hexdigest()


def build_manifest(
    *,
    kind: str,
    name: str,
    record_format: str,
    stream: RecordStream,
    method: str | None = None,
    seed: int | None = None,
    design: Mapping | None = None,
    release: Mapping | None = None,
    parent: Mapping | None = None,
    changes: Mapping | None = None,
) -> dict:
    """The complete manifest of a frozen set: every field is always present (null when unused),
    so its layout never depends on the kind."""
    return {
        "format": FORMAT,
        "kind": kind,
        "name": name,
        "method": method,
        "seed": seed,
        "design": dict(design) if design is not None else None,
        "release": dict(release) if release is not None else None,
        "parent": dict(parent) if parent is not None else None,
        "changes": dict(changes) if changes is not None else None,
        "record_format": record_format,
        "sample_count": stream.count,
        "sample_list_sha256": stream.sample_list_sha256,
        "records_sha256": stream.records_sha256,
    }


def manifest_sha256(manifest: Mapping) -> str:
    return sha256_hex(canonical_bytes(manifest))


def seeded_rank(seed: int, key: str) -> bytes:
    """The seeded order of the samplers: ascending SHA-256 of ``"<seed>:<key>"`` (UTF-8).

    Hashing rather than a random generator keeps a selection identical across machines, library
    versions and the order rows come out of the database.
    """
    return hashlib.sha256(f"{int(seed)}:{key}".encode()).digest()

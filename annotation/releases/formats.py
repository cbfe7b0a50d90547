"""Record formats: the fields every record of a bundle holds, one shape per format version.

A manifest names its records' format (``record_format``); the bundle writer and ``verify``
look the shape up here, so every line of ``annotations.jsonl`` and every row of ``steps.csv``
has the fields of its format, and a bundle the studio writes always passes its own check.

The first versions (``release-step/1``, ``subset-step/1``) are kept for what was frozen with
them: their records carry ``tags`` only when the step had some. Their bytes, and so both
hashes, stay as they were frozen; their ``steps.csv`` has a ``tags`` column when any record
has tags. Every release and manifest frozen now uses the second versions, where every record
carries ``tags`` (``[]`` when the step has none). Formats register themselves here (releases
below, sampled manifests from ``review``); a format nobody registered is read with the
general rule: every record has the fields of the first one.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class RecordShape:
    """The fields of one record format: ``fields`` are in every record; ``optional`` (first
    versions only) in the records whose value is not empty."""

    name: str
    fields: tuple[str, ...]
    optional: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # The field sets a record may have, for a check in one comparison per record.
        allowed = {frozenset(self.fields) | s for s in self.column_sets()}
        object.__setattr__(self, "_allowed", frozenset(allowed))

    def problem(self, record: Mapping) -> str | None:
        """Why ``record`` is not of this format (``None`` when it is)."""
        keys = frozenset(record)
        if keys in self._allowed and not any(record.get(f) in ([], "", None)
                                             for f in self.optional if f in keys):  # fmt: skip
            return None
        missing = [f for f in self.fields if f not in record]
        unknown = sorted(set(record) - set(self.fields) - set(self.optional))
        if missing or unknown:
            parts = []
            if missing:
                parts.append(f"lacks {', '.join(missing)}")
            if unknown:
                parts.append(f"has {', '.join(unknown)} too")
            return f"fields are not those of {self.name}: it {' and '.join(parts)}"
        empty = [f for f in self.optional if f in record and record[f] in ([], "", None)]
        if empty:
            return f"{', '.join(empty)} is present but empty (in {self.name} only when it is not)"
        return None

    def column_sets(self) -> list[frozenset[str]]:
        """The optional fields a table may hold: every subset of them (one set when none)."""
        return [
            frozenset(combo)
            for size in range(len(self.optional) + 1)
            for combo in itertools.combinations(self.optional, size)
        ]

    def columns(self, optional: Iterable[str] = ()) -> list[str]:
        """The table's columns with these optional fields present."""
        return csv_columns([*self.fields, *optional])


def _utf16_key(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def csv_columns(fields: Iterable[str]) -> list[str]:
    """``sample_id`` first, then the other fields in canonical (RFC 8785) order."""
    return ["sample_id", *sorted((k for k in fields if k != "sample_id"), key=_utf16_key)]


_SHAPES: dict[str, RecordShape] = {}


def record_format_register(shape: RecordShape) -> RecordShape:
    """Make ``shape`` known to the bundle writer and ``verify`` (idempotent)."""
    known = _SHAPES.get(shape.name)
    if known is not None and known != shape:
        raise ValueError(f"record format {shape.name} is registered with other fields")
    _SHAPES[shape.name] = shape
    return shape


def record_shape(name) -> RecordShape | None:
    return _SHAPES.get(name) if isinstance(name, str) else None


RELEASE_FIELDS = (
    "sample_id",
    "scene",
    "video_sha256",
    "position",
    "start_us",
    "cutoff_us",
    "outcome_us",
    "end_us",
    "local_intent",
    "procedural_intent",
    "next_step",
    "plausible_next_steps",
)
RELEASE_V1 = record_format_register(
    RecordShape("release-step/1", RELEASE_FIELDS, optional=("tags",))
)
RELEASE_V2 = record_format_register(RecordShape("release-step/2", (*RELEASE_FIELDS, "tags")))

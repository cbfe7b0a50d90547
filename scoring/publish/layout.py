"""The published folder: its file names, its columns and their fixed types (docs/publishing.md).

Pure definitions, no Django: the writer, the verifier and the importer read the same names.

A row is the set's own record (``release-step/1`` or ``subset-step/1``: docs/manifests.md) plus
media columns, which all start with ``media_``; ``tags`` is always a column (an empty list when
the step has none, and then absent from the record, as the records file writes it). So the record
of a row is its columns that do not start with ``media_``, without an empty ``tags``: its
canonical bytes are the line of ``annotations.jsonl``, and both hashes recompute from the rows.
"""

from __future__ import annotations

from collections.abc import Mapping

from media.windows import FRAME_CONDITIONS, NO_MEDIA_CONDITIONS

FORMAT = "intent-studio.published/1"
DESCRIPTION = "publish.json"
CARD = "README.md"
ROWS_PARQUET = "data/test.parquet"
ROWS_JSONL = "data/test.jsonl"
SPLIT = "test"
MEDIA_DIR = "media"
PACKAGES_DIR = "packages"
HARNESS_FILE = "harness/intent_studio_harness.py"
LMMS_DIR = "lmms_eval"
INSPECT_FILE = "inspect/intent_studio.py"
RELEASE_DIR = "release"  # a manifest's folder carries the bundle of the release it was drawn from
MEDIA_PREFIX = "media_"
FRAMES_PER_SET = 16
CLIP_PROFILE = "clip"

RELEASE_FORMAT = "release-step/1"
SUBSET_FORMAT = "subset-step/1"

# (column, type): "string", "int64", "list<string>"; nullable where a record may hold null.
RELEASE_COLUMNS = (
    ("sample_id", "string"),
    ("scene", "string"),
    ("video_sha256", "string"),
    ("position", "int64"),
    ("start_us", "int64"),
    ("cutoff_us", "int64"),
    ("outcome_us", "int64"),
    ("end_us", "int64"),
    ("local_intent", "string"),
    ("procedural_intent", "string"),
    ("next_step", "string"),
    ("plausible_next_steps", "list<string>"),
    ("tags", "list<string>"),
)
SUBSET_COLUMNS = (*RELEASE_COLUMNS, ("duration_bin", "int64"), ("group", "string"))
RECORD_COLUMNS = {RELEASE_FORMAT: RELEASE_COLUMNS, SUBSET_FORMAT: SUBSET_COLUMNS}


def is_clip_condition(condition: str) -> bool:
    return condition not in FRAME_CONDITIONS and condition not in NO_MEDIA_CONDITIONS


def media_columns(conditions) -> list[tuple[str, str]]:
    """The media columns of the published conditions: a clip condition has its clip (MP4) and its
    16 frames (PNG, what an images endpoint is sent); a frame-set condition its frames; a
    condition without media (scene only, prompt only) none. Paths are relative to the folder;
    a step the condition has no window for has nulls."""
    columns: list[tuple[str, str]] = []
    for condition in conditions:
        if condition in NO_MEDIA_CONDITIONS:
            continue
        if is_clip_condition(condition):
            columns += [
                (f"{MEDIA_PREFIX}{condition}_clip", "string"),
                (f"{MEDIA_PREFIX}{condition}_clip_sha256", "string"),
            ]
        columns += [
            (f"{MEDIA_PREFIX}{condition}_frames", "list<string>"),
            (f"{MEDIA_PREFIX}{condition}_frames_sha256", "list<string>"),
        ]
    return columns


def row_columns(record_format: str, conditions) -> list[tuple[str, str]]:
    return [*RECORD_COLUMNS[record_format], *media_columns(conditions)]


def record_of(row: Mapping) -> dict:
    """The set's record of a published row (see the module docstring)."""
    record = {k: v for k, v in row.items() if not k.startswith(MEDIA_PREFIX)}
    if not record.get("tags"):
        record.pop("tags", None)
    return record


def media_name(sha256: str, suffix: str) -> str:
    """A shipped medium's path: named by its content."""
    return f"{MEDIA_DIR}/{sha256}{suffix}"

"""Freezing, correcting, exporting and importing releases.

A release is a snapshot of every active step of the chosen source videos. It is written and
sealed in one transaction; a correction is a new release naming its parent and listing what
changed. All reads stream in sample-id order (``.iterator``), so memory stays flat for any size.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import connection, transaction

from annotation.models import MicroStep, Release, ReleaseStep
from annotation.releases.bundle import (
    RECORDS,
    BundleError,
    bundle_export,
    bundle_records,
    bundle_verify,
)
from annotation.releases.formats import RELEASE_FIELDS, RELEASE_V1, RELEASE_V2, RecordShape
from annotation.services import label_missing
from annotation.tags import clean_tags
from media.models import SourceVideo
from studio.canonical import FORMAT, RecordStream, build_manifest, canonical_bytes, sha256_hex
from studio.services import now

# Releases are frozen with the second version (every record carries "tags"); releases frozen
# with the first keep it, so their records, bytes and hashes never change (formats.py).
RECORD_FORMAT = RELEASE_V2.name
RECORD_FORMATS = {shape.name: shape for shape in (RELEASE_V1, RELEASE_V2)}
RECORD_FIELDS = RELEASE_FIELDS
# Columns of ReleaseStep in RECORD_FIELDS order (scene is stored as scene_slug), then the tags.
_ROW_FIELDS = ("sample_id", "scene_slug", *RECORD_FIELDS[2:], "tags")
RECORD_ROW_FIELDS = _ROW_FIELDS
_TEXT_FIELDS = ("scene", "video_sha256", "local_intent", "procedural_intent", "next_step")
_INT_FIELDS = ("position", "start_us", "cutoff_us", "outcome_us", "end_us")
BATCH = 2000


def release_record(row: tuple, *, shape: RecordShape = RELEASE_V2) -> dict:
    """A record of ``shape`` (a release-step format) from a row of ``RECORD_ROW_FIELDS``."""
    *values, tags = row
    record = dict(zip(RECORD_FIELDS, values, strict=True))
    record["sample_id"] = str(record["sample_id"])
    record["plausible_next_steps"] = list(record["plausible_next_steps"])
    if tags or "tags" in shape.fields:
        record["tags"] = list(tags)
    return record


def sealed_record_format(sealed, current: str) -> str:
    """The record format ``sealed`` (a release or manifest) was frozen with; ``current`` while
    it is being frozen."""
    return sealed.manifest.get("record_format", current) if sealed.is_frozen else current


def release_records(*, release: Release, record_format: str | None = None) -> Iterator[dict]:
    """The records of a release in canonical order, in the format it was frozen with (or
    ``record_format``)."""
    shape = RECORD_FORMATS[record_format or sealed_record_format(release, RECORD_FORMAT)]
    rows = (
        ReleaseStep.objects.filter(release=release).order_by("sample_id").values_list(*_ROW_FIELDS)
    )
    for row in rows.iterator(chunk_size=BATCH):
        yield release_record(row, shape=shape)


def _check_name(name: str) -> None:
    probe = Release(name=name)
    probe.full_clean(validate_unique=False, validate_constraints=False, exclude=["parent"])
    if Release.objects.filter(name=name).exists():
        raise ValidationError({"name": f"A release named {name} already exists."})


def _diff(parent: Release, child: Release) -> dict:
    """What the child changed relative to its parent: a merge of two sorted streams."""
    added, removed, changed = [], [], []
    old, new = release_records(release=parent), release_records(release=child)
    a, b = next(old, None), next(new, None)
    while a is not None or b is not None:
        if b is None or (a is not None and a["sample_id"] < b["sample_id"]):
            removed.append(a["sample_id"])
            a = next(old, None)
        elif a is None or b["sample_id"] < a["sample_id"]:
            added.append(b["sample_id"])
            b = next(new, None)
        else:
            fields = [k for k in (*RECORD_FIELDS, "tags") if a.get(k, []) != b.get(k, [])]
            if fields:
                changed.append({"sample_id": a["sample_id"], "fields": fields})
            a, b = next(old, None), next(new, None)
    return {"added": added, "removed": removed, "changed": changed}


def _copy_steps(*, release: Release, steps) -> None:
    """Copy the selected steps into the release in one INSERT ... SELECT.

    The database copies the rows itself (one statement instead of building a model object per
    step), which is what makes a 300,000-step freeze take seconds; the column list comes from
    the models' metadata, and the same SQL runs on SQLite and PostgreSQL.
    """
    target = ReleaseStep._meta
    step, video, scene = (
        MicroStep._meta,
        SourceVideo._meta,
        SourceVideo.scene.field.related_model._meta,
    )
    columns = {
        "release": "%s",
        "step": f"s.{step.pk.column}",
        "sample_id": f"s.{step.get_field('uid').column}",
        "scene_slug": f"c.{scene.get_field('slug').column}",
        "video_sha256": f"v.{video.get_field('sha256').column}",
        **{name: f"s.{step.get_field(name).column}" for name in RECORD_FIELDS[3:]},
        "tags": f"s.{step.get_field('tags').column}",
    }
    ids_sql, ids_params = steps.values("id").query.sql_with_params()
    # Only identifiers from model metadata are interpolated; every value is a parameter.
    sql = (
        f"INSERT INTO {target.db_table} "  # noqa: S608
        f"({', '.join(target.get_field(n).column for n in columns)}) "
        f"SELECT {', '.join(columns.values())} "
        f"FROM {step.db_table} s "
        f"JOIN {video.db_table} v ON v.{video.pk.column} = s.{step.get_field('video').column} "
        f"JOIN {scene.db_table} c ON c.{scene.pk.column} = v.{video.get_field('scene').column} "
        f"WHERE s.{step.pk.column} IN ({ids_sql})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [release.pk, *ids_params])


def _seal(release: Release, manifest: dict) -> Release:
    text = canonical_bytes(manifest)
    release.sample_count = manifest["sample_count"]
    release.sample_list_sha256 = manifest["sample_list_sha256"]
    release.records_sha256 = manifest["records_sha256"]
    release.manifest_text = text.decode("utf-8")
    release.manifest_sha256 = sha256_hex(text)
    release.frozen_at = now()
    release.save()
    return release


def _parent_ref(parent: Release | None) -> dict | None:
    if parent is None:
        return None
    return {"name": parent.name, "manifest_sha256": parent.manifest_sha256}


@transaction.atomic
def release_freeze(
    *,
    name: str,
    author,
    note: str = "",
    videos: Iterable[SourceVideo] | None = None,
    allow_incomplete: bool = False,
    parent: Release | None = None,
) -> Release:
    """Snapshot every active step of ``videos`` (default: every ready video) as a frozen release.

    Refuses (ValidationError, nothing written) a taken or malformed name, an empty selection and,
    unless ``allow_incomplete``, steps whose labels are not all written. With ``parent`` the new
    release records its parent and what changed; ``release_correct`` is the usual way there.
    """
    _check_name(name)
    if videos is None:
        video_ids = SourceVideo.objects.filter(status=SourceVideo.Status.READY).values("id")
    else:
        video_ids = [v.pk for v in videos]
    steps = MicroStep.objects.filter(status=MicroStep.Status.ACTIVE, video_id__in=video_ids)
    count = steps.count()
    if count == 0:
        raise ValidationError("There are no active steps to freeze.")
    if not allow_incomplete:
        incomplete = steps.filter(label_missing())
        first = incomplete.order_by("uid").values_list("uid", flat=True).first()
        if first is not None:
            raise ValidationError(
                f"{incomplete.count()} of {count} steps still miss a label (first: {first}); "
                "finish them or freeze with allow_incomplete."
            )
    if parent is not None and not parent.is_frozen:
        raise ValidationError({"parent": "The parent release is not frozen."})

    release = Release.objects.create(name=name, note=note, frozen_by=author, parent=parent)
    _copy_steps(release=release, steps=steps)
    # Hash what was stored, read back in canonical order: export re-reads the same rows, so
    # the frozen hashes are by construction those of the stored snapshot.
    stream = RecordStream()
    for record in release_records(release=release):
        stream.add(record)
    if stream.count != count:
        raise ValidationError("The steps changed while freezing; try again.")

    changes = None
    if parent is not None:
        changes = _diff(parent, release)
        if not any(changes.values()):
            raise ValidationError(
                f"Nothing changed since release {parent.name}: a correction must change something."
            )
    manifest = build_manifest(
        kind="release",
        name=name,
        record_format=RECORD_FORMAT,
        stream=stream,
        parent=_parent_ref(parent),
        changes=changes,
    )
    return _seal(release, manifest)


def release_correct(*, parent: Release, name: str, author, note: str = "") -> Release:
    """A new release of the same source videos as ``parent``, naming it and listing the changes.

    The parent is never edited. Fix the steps first (``step_update`` with action ``correct``),
    then call this; it refuses when nothing changed.
    """
    video_shas = ReleaseStep.objects.filter(release=parent).values("video_sha256")
    videos = SourceVideo.objects.filter(sha256__in=video_shas)
    return release_freeze(
        name=name, author=author, note=note, videos=videos, parent=parent, allow_incomplete=True
    )


def release_create(
    *,
    name: str,
    author,
    note: str = "",
    parent: Release | None = None,
    allow_incomplete: bool = False,
) -> Release:
    """What an admin asks for when freezing: a correction of ``parent`` when one is named (which
    takes every step of its videos), otherwise a freeze of the current steps."""
    if parent is not None:
        return release_correct(parent=parent, name=name, author=author, note=note)
    return release_freeze(name=name, author=author, note=note, allow_incomplete=allow_incomplete)


def release_export(*, release: Release, path: Path, as_zip: bool = False) -> Path:
    """Write the release's bundle to ``path`` (a new directory, or a .zip with ``as_zip``)."""
    if not release.is_frozen:
        raise BundleError(f"Release {release.name} is not frozen.")
    return bundle_export(
        path=path, manifest=release.manifest, records=release_records(release=release),
        as_zip=as_zip,
    )  # fmt: skip


def _check_record(number: int, record: dict, shape: RecordShape) -> None:
    problem = shape.problem(record)
    if problem:
        raise ValidationError(f"{RECORDS} line {number}: {problem}.")
    if "tags" in record:
        try:
            tags = clean_tags(record["tags"])
        except ValidationError as exc:
            raise ValidationError(f"{RECORDS} line {number}: {' '.join(exc.messages)}") from None
        if tags != record["tags"]:
            raise ValidationError(
                f"{RECORDS} line {number}: tags must be a sorted list of unique tags."
            )
    try:
        uuid.UUID(record["sample_id"])
    except (ValueError, TypeError, AttributeError):
        raise ValidationError(f"{RECORDS} line {number}: sample_id is not a UUID.") from None
    if str(uuid.UUID(record["sample_id"])) != record["sample_id"]:
        raise ValidationError(
            f"{RECORDS} line {number}: sample_id is not a lower-case hyphenated UUID."
        )
    for key in _TEXT_FIELDS:
        if not isinstance(record[key], str):
            raise ValidationError(f"{RECORDS} line {number}: {key} must be text.")
    for key in _INT_FIELDS:
        if not isinstance(record[key], int) or isinstance(record[key], bool) or record[key] < 0:
            raise ValidationError(f"{RECORDS} line {number}: {key} must be a non-negative integer.")
    items = record["plausible_next_steps"]
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise ValidationError(
            f"{RECORDS} line {number}: plausible_next_steps must be a list of texts."
        )


@transaction.atomic
def release_import(*, path: Path, author=None) -> Release:
    """Load an exported release bundle (directory or .zip) as a frozen release.

    The bundle is verified first and the stored rows re-hashed after loading, so an imported
    release has exactly the hashes of the exported one; anything else is refused and nothing is
    written. Importing the same bundle again returns the release already there. Source videos are
    referenced by SHA-256 and need not exist here; steps whose uid exists here are linked.
    """
    report = bundle_verify(path)
    if not report.ok:
        raise ValidationError(["The bundle does not verify:", *report.problems])
    manifest = report.manifest
    if manifest.get("kind") != "release":
        raise ValidationError(
            f"This bundle holds a {manifest.get('kind')} manifest; only releases can be imported."
        )
    if manifest.get("record_format") not in RECORD_FORMATS:
        raise ValidationError(
            f"This release's records are {manifest.get('record_format')!r}; this version reads "
            f"{' and '.join(RECORD_FORMATS)}."
        )
    shape = RECORD_FORMATS[manifest["record_format"]]
    existing = Release.objects.filter(manifest_sha256=report.manifest_sha256).first()
    if existing is not None:
        return existing
    _check_name(manifest["name"])
    parent = None
    if manifest.get("parent"):
        parent = Release.objects.filter(
            manifest_sha256=manifest["parent"].get("manifest_sha256")
        ).first()
    release = Release.objects.create(
        name=manifest["name"],
        parent=parent,
        origin=Release.Origin.IMPORTED,
        frozen_by=author,
        note=f"Imported from {Path(path).name}",
    )

    def flush(batch: list[dict]) -> None:
        live = dict(
            MicroStep.objects.filter(uid__in=[r["sample_id"] for r in batch]).values_list(
                "uid", "id"
            )
        )
        ReleaseStep.objects.bulk_create(
            ReleaseStep(
                release=release,
                step_id=live.get(uuid.UUID(r["sample_id"])),
                sample_id=uuid.UUID(r["sample_id"]),
                scene_slug=r["scene"],
                **{k: r[k] for k in RECORD_FIELDS[2:]},
                tags=r.get("tags", []),
            )
            for r in batch
        )

    batch: list[dict] = []
    for number, record in enumerate(bundle_records(path), 1):
        _check_record(number, record, shape)
        batch.append(record)
        if len(batch) >= BATCH:
            flush(batch)
            batch = []
    if batch:
        flush(batch)

    # Re-hash what the database now holds: it must give the exported hashes exactly.
    stream = RecordStream()
    for record in release_records(release=release, record_format=shape.name):
        stream.add(record)
    if (stream.sample_list_sha256, stream.records_sha256) != (
        manifest["sample_list_sha256"],
        manifest["records_sha256"],
    ):
        raise ValidationError("The imported rows do not reproduce the bundle's hashes.")
    if manifest.get("format") != FORMAT:
        raise ValidationError(f"Unknown manifest format {manifest.get('format')!r}.")
    sealed = _seal(release, manifest)
    if sealed.manifest_sha256 != report.manifest_sha256:
        raise ValidationError("The imported manifest does not reproduce its SHA-256.")
    return sealed

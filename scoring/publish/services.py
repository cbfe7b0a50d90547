"""Publishing a frozen release or manifest as a folder that needs nothing of the studio.

``benchmark_publish`` writes the set's bundle (docs/manifests.md), its rows with the media of
each asked condition, the dataset card, the prompt packages and the harness tasks into a new
folder next to the target, lists every file in ``SHA256SUMS``, verifies the result the way
``verify_manifest`` does, and only then renames it into place (or zips it). Nothing in it depends
on when or where it was made: the same set, conditions and packages give the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import shutil
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from annotation.models import Release
from annotation.releases import bundle_verify, bundle_write, release_records
from annotation.releases.bundle import SUMS, ZIP_DATE
from review.manifests.services import manifest_records
from review.models import Manifest
from scoring.packages import PackageError, package_resolve, package_verified
from scoring.publish.card import card_text
from scoring.publish.harness_files import harness_write, lmms_tasks, package_file, task_stem
from scoring.publish.layout import (
    CARD,
    DESCRIPTION,
    FORMAT,
    FRAMES_PER_SET,
    MEDIA_DIR,
    RECORD_COLUMNS,
    RELEASE_DIR,
    RELEASE_FORMAT,
    SUBSET_FORMAT,
    media_columns,
    row_columns,
)
from scoring.publish.media import (
    MediaCopier,
    PublishError,
    media_cells,
    media_plan,
    media_render_missing,
)
from scoring.publish.rows import RowsWriter
from scoring.runs.services import CONDITIONS, target_steps

JUDGE_PACKAGE = "reference-judge"
DEFAULT_PACKAGE = "official-prediction"
_CHUNK = 1 << 20


@dataclass
class Published:
    path: Path
    name: str
    kind: str
    steps: int
    conditions: list[str]
    media_files: int
    media_bytes: int
    total_bytes: int
    files: int
    seconds: float
    manifest_sha256: str


def published_set(name: str) -> tuple[Release, Manifest | None]:
    """The frozen release or manifest called ``name``: (release, manifest or None)."""
    release = Release.objects.filter(name=name, frozen_at__isnull=False).first()
    manifest = Manifest.objects.filter(name=name, frozen_at__isnull=False).first()
    if release is not None and manifest is not None:
        raise PublishError(f"{name} names both a release and a manifest; rename one to publish")
    if manifest is not None:
        if manifest.release_id is None:
            raise PublishError(f"{name} is a QA-review manifest: its samples are not steps")
        return manifest.release, manifest
    if release is None:
        raise PublishError(f"no frozen release or manifest named {name}")
    return release, None


def _conditions(conditions) -> list[str]:
    wanted = [c.strip() for c in conditions if c.strip()]
    unknown = [c for c in wanted if c not in CONDITIONS]
    if unknown:
        raise PublishError(
            f"unknown condition(s) {', '.join(unknown)}; one of: {', '.join(CONDITIONS)}"
        )
    if not wanted or len(set(wanted)) != len(wanted):
        raise PublishError("name one or more distinct conditions")
    return wanted


def _packages(prediction: str):
    try:
        rows = {
            "prediction": package_resolve(prediction),
            "reference_judge": package_resolve(JUDGE_PACKAGE),
        }
        checked = {purpose: (row, package_verified(row)) for purpose, row in rows.items()}
    except PackageError as exc:
        raise PublishError(str(exc)) from None
    for purpose, (row, _package) in checked.items():
        if row.purpose != purpose:
            raise PublishError(f"package {row.name} is for {row.purpose}, not {purpose}")
    return checked


def _describe(*, release, manifest, conditions, columns, checked, unavailable) -> dict:
    sealed = manifest or release
    header = json.loads(sealed.manifest_text)
    record_format = header["record_format"]
    if record_format not in (RELEASE_FORMAT, SUBSET_FORMAT):
        raise PublishError(f"{sealed.name}: records of format {record_format} are not steps")
    return {
        "format": FORMAT,
        "name": sealed.name,
        "kind": header["kind"],
        "release": release.name,
        "record_format": record_format,
        "record_fields": [c for c, _ in RECORD_COLUMNS[record_format]],
        "sample_count": sealed.sample_count,
        "sample_list_sha256": sealed.sample_list_sha256,
        "manifest_sha256": sealed.manifest_sha256,
        "window_rule": "[start_us, cutoff_us)",
        "conditions": conditions,
        "frames_per_set": FRAMES_PER_SET,
        "columns": [list(c) for c in columns],
        "packages": {
            purpose: {
                "name": row.name,
                "version": row.version,
                "sha256": row.sha256,
                "file": package_file(purpose, package),
            }
            for purpose, (row, package) in checked.items()
        },
        "prediction_sampling": checked["prediction"][1].sampling,
        "task_name": task_stem(sealed.name),
        "lmms_tasks": [t for t, _c, _i in lmms_tasks(sealed.name, conditions)],
        "unavailable": unavailable,
    }


def _files(folder: Path) -> list[str]:
    names = [p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()]
    return sorted((n for n in names if n != SUMS), key=lambda n: n.encode("utf-8"))


def _sums(folder: Path) -> int:
    lines = []
    for name in _files(folder):
        digest = hashlib.sha256()
        with open(folder / name, "rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
        lines.append(f"{digest.hexdigest()}  {name}\n")
    (folder / SUMS).write_bytes("".join(lines).encode("utf-8"))
    return len(lines) + 1


def folder_zip(folder: Path, target: Path) -> None:
    """Zip a published folder (files at the archive's root, fixed order and dates)."""
    with zipfile.ZipFile(target, "w") as archive:
        for name in [*_files(folder), SUMS]:
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.external_attr = 0o644 << 16
            stored = name.startswith(f"{MEDIA_DIR}/") or name.endswith(".parquet")
            info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
            with open(folder / name, "rb") as source, archive.open(info, "w") as sink:
                shutil.copyfileobj(source, sink, _CHUNK)


def _records(release: Release, manifest: Manifest | None):
    """The set's records, streamed in sample-id order."""
    if manifest is not None:
        return manifest_records(manifest=manifest)
    return release_records(release=release)


def _rows_write(work: Path, *, record_format: str, conditions, records, plan) -> MediaCopier:
    """Write the rows (record + media cells) as they stream, copying each medium on the way."""
    copier = MediaCopier(work)
    media_names = [c for c, _ in media_columns(conditions)]
    record_columns = [c for c, _ in RECORD_COLUMNS[record_format]]
    writer = RowsWriter(work, row_columns(record_format, conditions))
    try:
        for record in records:
            unknown = set(record) - set(record_columns)
            if unknown:
                raise PublishError(
                    f"record {record['sample_id']}: unknown field(s) {sorted(unknown)}"
                )
            row = {c: record.get(c) for c in record_columns}
            row["tags"] = list(record.get("tags") or [])
            row |= media_cells(plan[record["sample_id"]], media_names, copier)
            writer.add(row)
        writer.close()
    except BaseException:
        writer.abort()
        raise
    return copier


def _report(stream: Callable[[str], None] | None, text: str) -> None:
    if stream is not None:
        stream(text)


def benchmark_publish(
    *,
    name: str,
    out: Path,
    conditions=("official",),
    package: str = DEFAULT_PACKAGE,
    as_zip: bool = False,
    say: Callable[[str], None] | None = None,
) -> Published:
    """Publish the frozen release or manifest ``name`` into ``out`` (a new folder, or a new .zip
    with ``as_zip``). Refuses, writing nothing at ``out``, a missing set, an unknown condition, a
    package whose bytes changed, a medium that cannot be rendered or verified."""
    started = time.monotonic()
    out = Path(out)
    if out.exists():
        raise PublishError(f"{out} already exists; publish into a new path")
    if not out.parent.is_dir():
        raise PublishError(f"{out.parent} is not a folder")
    conditions = _conditions(conditions)
    release, manifest = published_set(name)
    checked = _packages(package)
    sealed = manifest or release
    work = out.parent / f".publish-{secrets.token_hex(6)}"
    try:
        header = json.loads(sealed.manifest_text)
        bundle_write(path=work, manifest=header, records=_records(release, manifest))
        if manifest is not None:
            release_header = json.loads(release.manifest_text)
            bundle_write(
                path=work / RELEASE_DIR,
                manifest=release_header,
                records=release_records(release=release),
            )
        steps = target_steps(release=release, manifest=manifest)
        _report(say, f"{sealed.name}: {len(steps)} steps, conditions {', '.join(conditions)}")
        plan = media_plan(steps, conditions, seed=manifest.seed if manifest else 0)
        media_render_missing(
            plan, lambda done, total: _report(say, f"rendered {done}/{total} steps")
        )
        columns = row_columns(header["record_format"], conditions)
        unavailable = [
            {"sample_id": uid, "condition": c, "reason": reason}
            for uid, entry in sorted(plan.items())
            for c, reason in sorted(entry.unavailable.items())
        ]
        described = _describe(
            release=release,
            manifest=manifest,
            conditions=conditions,
            columns=columns,
            checked=checked,
            unavailable=unavailable,
        )
        copier = _rows_write(
            work, record_format=header["record_format"], conditions=conditions,
            records=_records(release, manifest), plan=plan,
        )  # fmt: skip
        (work / DESCRIPTION).write_text(
            json.dumps(described, ensure_ascii=False, sort_keys=True, indent=2) + "\n",
            encoding="utf-8",
        )
        media = {"files": len(copier.written), "bytes": sum(copier.written.values())}
        (work / CARD).write_text(
            card_text(described=described, columns=columns, media=media), encoding="utf-8"
        )
        harness_write(
            work, described=described, packages={p: pkg for p, (_row, pkg) in checked.items()}
        )
        files = _sums(work)
        report = bundle_verify(work)
        if not report.ok:
            raise PublishError(
                "the published folder does not verify: " + "; ".join(report.problems[:5])
            )
        if as_zip:
            archive = work.with_suffix(".zip")
            try:
                folder_zip(work, archive)
                archive.rename(out)
            finally:
                archive.unlink(missing_ok=True)
            shutil.rmtree(work)
        else:
            work.rename(out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    total = (
        out.stat().st_size
        if as_zip
        else sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    )
    _report(say, f"wrote {out}")
    return Published(
        path=out,
        name=sealed.name,
        kind=described["kind"],
        steps=sealed.sample_count,
        conditions=conditions,
        media_files=media["files"],
        media_bytes=media["bytes"],
        total_bytes=total,
        files=files,
        seconds=time.monotonic() - started,
        manifest_sha256=sealed.manifest_sha256,
    )

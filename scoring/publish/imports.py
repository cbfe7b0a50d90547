"""Loading a published folder (or its .zip) into an instance, with identical hashes and media.

The folder is verified first (everything ``verify_manifest`` checks); then its release bundle is
imported as a frozen release (``release_import``, which re-hashes what the database holds), a
manifest's selection is frozen again on that release and must give the published manifest's
bytes, and every medium is stored by its content under ``published/`` and checked against its
SHA-256 while it is copied. Any difference refuses the import and writes no row; importing the
same folder again returns what is there.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.db import transaction

from annotation.models import Release
from annotation.releases import BundleReader, bundle_reader, bundle_verify, release_import
from annotation.releases.bundle import RECORDS, SUMS
from review.manifests.services import manifest_freeze_selection
from review.models import Manifest
from scoring.models import ImportedBenchmark, ImportedMedium
from scoring.publish.layout import DESCRIPTION, MEDIA_PREFIX, RELEASE_DIR, ROWS_JSONL

STORE = "published"
_CHUNK = 1 << 20
BATCH = 1000


@dataclass
class ImportedSet:
    benchmark: ImportedBenchmark
    release: Release
    manifest: Manifest | None
    media_files: int
    media_bytes: int
    created: bool


def _lines(reader: BundleReader, name: str) -> Iterator[dict]:
    with reader.open(name) as handle:
        for line in handle:
            yield json.loads(line)


@contextmanager
def _release_bundle(path: Path, reader: BundleReader) -> Iterator[Path]:
    """The release bundle inside a manifest's folder, as a path ``release_import`` reads."""
    if Path(path).is_dir():
        yield Path(path) / RELEASE_DIR
        return
    with tempfile.TemporaryDirectory() as work:
        target = Path(work) / "release"
        target.mkdir()
        for name in ("manifest.json", "samples.txt", "annotations.jsonl", "steps.csv", SUMS):
            with reader.open(f"{RELEASE_DIR}/{name}") as src, open(target / name, "wb") as dst:
                shutil.copyfileobj(src, dst, _CHUNK)
        yield target


def _manifest_import(*, header: dict, reader: BundleReader, release: Release, author) -> Manifest:
    if (header.get("release") or {}).get("manifest_sha256") != release.manifest_sha256:
        raise ValidationError("The manifest was not drawn from the release in this folder.")
    if Manifest.objects.filter(name=header["name"]).exists():
        raise ValidationError(f"A manifest named {header['name']} already exists.")
    sample_ids, bins, groups = [], {}, {}
    for record in _lines(reader, RECORDS):
        sample_ids.append(record["sample_id"])
        bins[record["sample_id"]] = record["duration_bin"]
        if record.get("group"):
            groups[record["sample_id"]] = record["group"]
    return manifest_freeze_selection(
        name=header["name"],
        kind=header["kind"],
        method=header["method"],
        seed=header["seed"],
        release=release,
        params=header["design"] or {},
        sample_ids=sample_ids,
        bins=bins,
        groups=groups,
        author=author,
    )


def _store(reader: BundleReader, name: str, digest: str) -> tuple[str, int]:
    """Copy a medium into storage by its content (once); (storage path, size)."""
    suffix = Path(name).suffix
    relative = f"{STORE}/{digest[:2]}/{digest}{suffix}"
    target = Path(default_storage.path(relative))
    if target.is_file():
        return relative, target.stat().st_size
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}")
    sha, size = hashlib.sha256(), 0
    try:
        with reader.open(name) as src, open(tmp, "wb") as dst:
            while chunk := src.read(_CHUNK):
                sha.update(chunk)
                dst.write(chunk)
                size += len(chunk)
        if sha.hexdigest() != digest:
            raise ValidationError(f"{name}: its bytes changed while it was imported")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return relative, size


def _media_rows(reader: BundleReader, benchmark: ImportedBenchmark) -> tuple[int, int]:
    stored: dict[str, tuple[str, int]] = {}
    batch: list[ImportedMedium] = []
    for row in _lines(reader, ROWS_JSONL):
        for column, value in row.items():
            if not column.startswith(MEDIA_PREFIX) or column.endswith("_sha256") or value is None:
                continue
            paths = value if isinstance(value, list) else [value]
            digests = row[f"{column}_sha256"]
            digests = digests if isinstance(digests, list) else [digests]
            for position, (name, digest) in enumerate(zip(paths, digests, strict=True)):
                if name not in stored:
                    stored[name] = _store(reader, name, digest)
                path, size = stored[name]
                batch.append(
                    ImportedMedium(
                        benchmark=benchmark,
                        sample_id=row["sample_id"],
                        column=column,
                        position=position,
                        sha256=digest,
                        path=path,
                        size_bytes=size,
                    )
                )
        if len(batch) >= BATCH:
            ImportedMedium.objects.bulk_create(batch)
            batch = []
    ImportedMedium.objects.bulk_create(batch)
    return len(stored), sum(size for _path, size in stored.values())


@transaction.atomic
def benchmark_import(*, path: Path, author=None) -> ImportedSet:
    """Import the published folder (or .zip) at ``path``; ValidationError (nothing written)
    when it does not verify or does not reproduce its hashes."""
    report = bundle_verify(path)
    if not report.ok:
        raise ValidationError(["The folder does not verify:", *report.problems])
    with bundle_reader(path) as reader:
        if not reader.has(DESCRIPTION):
            raise ValidationError(
                f"{path} is a bundle without {DESCRIPTION}, not a published benchmark; "
                "import a release bundle with import_release"
            )
        with reader.open(DESCRIPTION) as handle:
            described = json.loads(handle.read())
        header = report.manifest
        existing = ImportedBenchmark.objects.filter(name=described["name"]).first()
        if existing is not None:
            if existing.manifest_sha256 != report.manifest_sha256:
                raise ValidationError(
                    f"A benchmark named {described['name']} was imported with other hashes."
                )
            count = existing.media.values("sha256").distinct().count()
            return ImportedSet(existing, existing.release, existing.manifest, count, 0, False)
        manifest = None
        if header["kind"] == "release":
            release = release_import(path=path, author=author)
        else:
            with _release_bundle(path, reader) as bundle:
                release = release_import(path=bundle, author=author)
            manifest = _manifest_import(
                header=header, reader=reader, release=release, author=author
            )
        sealed = manifest or release
        if (sealed.sample_list_sha256, sealed.manifest_sha256) != (
            report.sample_list_sha256,
            report.manifest_sha256,
        ):
            raise ValidationError("The imported set does not reproduce the folder's hashes.")
        with reader.open(SUMS) as handle:
            sums_sha256 = hashlib.sha256(handle.read()).hexdigest()
        benchmark = ImportedBenchmark.objects.create(
            name=described["name"],
            kind=header["kind"],
            release=release,
            manifest=manifest,
            manifest_sha256=sealed.manifest_sha256,
            sample_list_sha256=sealed.sample_list_sha256,
            conditions=described["conditions"],
            description=described,
            sums_sha256=sums_sha256,
            imported_by=author if author is not None and author.is_authenticated else None,
        )
        files, size = _media_rows(reader, benchmark)
    return ImportedSet(benchmark, release, manifest, files, size, True)

"""Tags in releases and manifests: one record shape per format version.

Every bundle the studio writes (directory, zip, admin and API downloads, sampled manifests)
passes its own ``verify_manifest`` and imports, whether the first record carries tags or not;
``steps.csv`` always has the tags column; and a release frozen with the first record format
(tags only in the records of tagged steps) keeps its bytes and both hashes."""

import csv
import hashlib
import io
import json
import zipfile

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import transaction
from django.test import Client
from django.urls import reverse

from annotation.models import MicroStep, Release, ReleaseStep
from annotation.releases import (
    RECORD_FIELDS,
    RECORD_ROW_FIELDS,
    BundleError,
    bundle_verify,
    bundle_write,
    release_export,
    release_freeze,
    release_import,
)
from annotation.releases.services import _copy_steps, _seal
from annotation.services import step_update
from review.manifests.services import design_create, manifest_freeze
from studio.canonical import RecordStream, build_manifest, canonical_bytes
from tests.annotation.test_release_freeze import KNOWN_V1_MANIFEST_SHA256
from tests.review.factories import build_dataset

pytestmark = pytest.mark.django_db
ORDERS = ["first-tagged", "first-untagged"]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _tag_steps(admin_user, order: str) -> list[str]:
    """Tag two steps so that the first record in canonical order carries tags or not."""
    uids = sorted(str(u) for u in MicroStep.objects.values_list("uid", flat=True))
    chosen = [uids[0], uids[7]] if order == "first-tagged" else [uids[1], uids[7]]
    for uid, tags in zip(chosen, (["action_type:pour", "occluded"], ["hand:left"]), strict=True):
        step = MicroStep.objects.get(uid=uid)
        step_update(step=step, author=admin_user, version=step.version, values={"tags": tags})
    return chosen


def _old_record(row: tuple) -> dict:
    """A release record as the studio wrote it before every record carried tags (the first
    record format, kept here as it was)."""
    *values, tags = row
    record = dict(zip(RECORD_FIELDS, values, strict=True))
    record["sample_id"] = str(record["sample_id"])
    record["plausible_next_steps"] = list(record["plausible_next_steps"])
    if tags:
        record["tags"] = list(tags)
    return record


def _freeze_as_before(name: str, author) -> tuple[Release, bytes]:
    """Freeze every active step the way ``release_freeze`` did with ``release-step/1``; returns
    the release and the bytes its annotations.jsonl had then."""
    release = Release.objects.create(name=name, frozen_by=author)
    _copy_steps(release=release, steps=MicroStep.objects.filter(status="active"))
    stream, lines = RecordStream(), []
    rows = ReleaseStep.objects.filter(release=release).order_by("sample_id")
    for row in rows.values_list(*RECORD_ROW_FIELDS):
        lines.append(stream.add(_old_record(row))[1])
    manifest = build_manifest(
        kind="release", name=name, record_format="release-step/1", stream=stream
    )
    return _seal(release, manifest), b"".join(lines)


def _download(client: Client, url: str, path):
    response = client.get(url)
    assert response.status_code == 200, url
    path.write_bytes(b"".join(response.streaming_content))
    return path


def _every_bundle(release: Release, tmp_path, admin_user) -> dict:
    """The release exported every way the studio hands it out."""
    bundles = {
        "directory": release_export(release=release, path=tmp_path / "dir"),
        "zip": release_export(release=release, path=tmp_path / "bundle.zip", as_zip=True),
    }
    client = Client()
    client.force_login(admin_user)
    bundles["api"] = _download(
        client, reverse("review:release-download", args=[release.pk]), tmp_path / "api.zip"
    )
    bundles["admin"] = _download(
        client,
        reverse("admin:annotation_release_download", args=[release.pk]),
        tmp_path / "admin.zip",
    )
    return bundles


def _files(bundle) -> dict[str, bytes]:
    if bundle.is_dir():
        return {p.name: p.read_bytes() for p in bundle.iterdir()}
    with zipfile.ZipFile(bundle) as archive:
        return {n: archive.read(n) for n in archive.namelist()}


def _verify_command(path) -> str:
    out = io.StringIO()
    call_command("verify_manifest", str(path), stdout=out)
    return out.getvalue()


class _Undo(Exception):
    pass


def _import_into_an_empty_database(bundle, build) -> Release:
    """``build()`` (the data, the release, its bundle) runs in a transaction that is then rolled
    back, so the bundle is imported into a database holding none of it."""
    with pytest.raises(_Undo), transaction.atomic():
        build()
        raise _Undo
    assert not Release.objects.exists() and not MicroStep.objects.exists()
    return release_import(path=bundle)


@pytest.mark.parametrize("order", ORDERS)
def test_a_release_of_tagged_and_untagged_steps_exports_verifies_and_imports(
    admin_user, tmp_path, order
):
    frozen = {}

    def build():
        build_dataset(author=admin_user)
        tagged = _tag_steps(admin_user, order)
        release = release_freeze(name="mixed_v1", author=admin_user)
        bundles = _every_bundle(release, tmp_path, admin_user)
        files = {kind: _files(path) for kind, path in bundles.items()}
        assert files["zip"] == files["api"] == files["admin"] == files["directory"]
        for kind, path in bundles.items():
            report = bundle_verify(path)
            assert report.ok, (kind, report.problems)
            assert report.manifest_sha256 == release.manifest_sha256
            assert "matches the release in this database" in _verify_command(path)
        records = [json.loads(x) for x in files["zip"]["annotations.jsonl"].splitlines()]
        assert all("tags" in r for r in records) and len(records) == 43
        assert [r["sample_id"] for r in records if r["tags"]] == sorted(tagged)
        table = list(csv.DictReader(io.StringIO(files["zip"]["steps.csv"].decode())))
        assert [row["sample_id"] for row in table if row["tags"] != "[]"] == sorted(tagged)
        assert _sha(files["zip"]["annotations.jsonl"]) == release.records_sha256
        frozen.update(
            sample_list=release.sample_list_sha256,
            manifest=release.manifest_sha256,
            tags=dict(ReleaseStep.objects.filter(release=release).values_list("sample_id", "tags")),
        )

    imported = _import_into_an_empty_database(tmp_path / "bundle.zip", build)
    assert (imported.sample_list_sha256, imported.manifest_sha256) == (
        frozen["sample_list"],
        frozen["manifest"],
    )
    got = dict(ReleaseStep.objects.filter(release=imported).values_list("sample_id", "tags"))
    assert got == frozen["tags"]
    again = release_export(release=imported, path=tmp_path / "again")
    assert _files(again) == _files(tmp_path / "dir")


@pytest.mark.parametrize("order", ORDERS)
def test_a_manifest_drawn_from_tagged_and_untagged_steps_exports_and_verifies(
    admin_user, tmp_path, order
):
    build_dataset(author=admin_user)
    _tag_steps(admin_user, order)
    release = release_freeze(name="mixed_v1", author=admin_user)
    design = design_create(
        author=admin_user,
        name="mixed_all",
        method="stratified",
        release=release,
        seed=5,
        params={"target_n": 43},
    )
    manifest = manifest_freeze(design=design, author=admin_user)
    out = io.StringIO()
    call_command("export_manifest", "mixed_all", str(tmp_path / "m"), stdout=out)
    call_command("export_manifest", "mixed_all", str(tmp_path / "m.zip"), "--zip", stdout=out)
    client = Client()
    client.force_login(admin_user)
    for url in (
        reverse("review:manifest-download", args=[manifest.pk]),
        reverse("admin:review_manifest_download", args=[manifest.pk]),
    ):
        _download(client, url, tmp_path / "download.zip")
        assert _files(tmp_path / "download.zip") == _files(tmp_path / "m.zip")
    for path in (tmp_path / "m", tmp_path / "m.zip"):
        report = bundle_verify(path)
        assert report.ok, report.problems
        assert report.manifest_sha256 == manifest.manifest_sha256
        assert "matches the manifest in this database" in _verify_command(path)
    header = (tmp_path / "m" / "steps.csv").read_text().splitlines()[0].split(",")
    assert {"tags", "duration_bin", "group"} <= set(header)


def test_steps_csv_has_the_tags_column_when_no_step_has_tags(admin_user, tmp_path):
    build_dataset(author=admin_user)
    release = release_freeze(name="plain_v1", author=admin_user)
    bundle = release_export(release=release, path=tmp_path / "plain")
    lines = (bundle / "steps.csv").read_text().splitlines()
    assert "tags" in lines[0].split(",")
    assert all(json.loads(x)["tags"] == [] for x in (bundle / "annotations.jsonl").open())


@pytest.mark.parametrize("order", ["untagged", *ORDERS])
def test_a_release_frozen_with_the_first_record_format_keeps_its_bytes_and_hashes(
    admin_user, tmp_path, order
):
    """Frozen the way the studio froze before this version, then exported by this version:
    the same records, manifest and hashes; the bundle verifies and imports."""
    frozen = {}

    def build():
        build_dataset(author=admin_user)
        if order != "untagged":
            _tag_steps(admin_user, order)
        release, old_records = _freeze_as_before("egointent_v1", admin_user)
        if order == "untagged":
            assert release.manifest_sha256 == KNOWN_V1_MANIFEST_SHA256
        bundles = _every_bundle(release, tmp_path, admin_user)
        for kind, path in bundles.items():
            files = _files(path)
            assert files["annotations.jsonl"] == old_records, kind
            assert files["manifest.json"].decode() == release.manifest_text
            assert _sha(files["manifest.json"]) == release.manifest_sha256
            assert _sha(files["samples.txt"]) == release.sample_list_sha256
            assert _sha(old_records) == release.records_sha256
            header = files["steps.csv"].decode().splitlines()[0].split(",")
            # A release without any tag keeps the steps.csv it always had; one with tags has
            # the column (before, it crashed or left the tags out).
            assert ("tags" in header) == (order != "untagged")
            report = bundle_verify(path)
            assert report.ok, (kind, report.problems)
            assert "matches the release in this database" in _verify_command(path)
        frozen.update(manifest=release.manifest_sha256, sample_list=release.sample_list_sha256)

    imported = _import_into_an_empty_database(tmp_path / "bundle.zip", build)
    assert imported.manifest_sha256 == frozen["manifest"]
    assert imported.sample_list_sha256 == frozen["sample_list"]
    assert json.loads(imported.manifest_text)["record_format"] == "release-step/1"
    again = release_export(release=imported, path=tmp_path / "again")
    assert _files(again) == _files(tmp_path / "dir")


def _bundle_of(tmp_path, name: str, record_format: str, records: list[dict]):
    stream = RecordStream()
    for record in records:
        stream.add(record)
    manifest = build_manifest(kind="release", name=name, record_format=record_format, stream=stream)
    path = tmp_path / name
    bundle_write(path=path, manifest=manifest, records=records)
    return path


def test_verify_and_import_name_a_record_that_is_not_of_its_format(admin_user, tmp_path):
    build_dataset(author=admin_user)
    release = release_freeze(name="egointent_v1", author=admin_user)
    bundle = release_export(release=release, path=tmp_path / "good")
    records = [json.loads(x) for x in (bundle / "annotations.jsonl").open()]

    # The writer refuses a record without the fields of its format (and leaves nothing).
    bad = [records[0], {k: v for k, v in records[1].items() if k != "tags"}]
    with pytest.raises(BundleError, match=r"record 2 \(.*\): .* it lacks tags"):
        _bundle_of(tmp_path, "bad", "release-step/2", bad)
    assert not (tmp_path / "bad").exists()

    # A bundle rewritten by hand (every hash recomputed) is still named by verify and import.
    forged = tmp_path / "forged"
    forged.mkdir()
    records[2] = {k: v for k, v in records[2].items() if k != "tags"}
    lines = b"".join(_line(r) for r in records)
    stream = RecordStream()
    for r in records:
        stream.add(r)
    manifest = build_manifest(
        kind="release", name="forged_v1", record_format="release-step/2", stream=stream
    )
    (forged / "annotations.jsonl").write_bytes(lines)
    (forged / "manifest.json").write_bytes(canonical_bytes(manifest))
    (forged / "samples.txt").write_bytes(b"".join(r["sample_id"].encode() + b"\n" for r in records))
    (forged / "steps.csv").write_bytes((bundle / "steps.csv").read_bytes())
    names = ("annotations.jsonl", "manifest.json", "samples.txt", "steps.csv")
    (forged / "SHA256SUMS").write_text(
        "".join(f"{_sha((forged / n).read_bytes())}  {n}\n" for n in names)
    )
    problems = bundle_verify(forged).problems
    assert "annotations.jsonl line 3: fields are not those of release-step/2: it lacks tags" in (
        problems
    )
    with pytest.raises(ValidationError, match="lacks tags"):
        release_import(path=forged)
    assert Release.objects.count() == 1


def _line(record: dict) -> bytes:
    return canonical_bytes(record) + b"\n"

"""Export bundles: verify recomputes every hash and names each mismatch; an import into an empty
instance reproduces the same hashes."""

import hashlib
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import connection

from annotation.models import Release, ReleaseStep
from annotation.releases import (
    BundleError,
    bundle_verify,
    release_export,
    release_freeze,
    release_import,
)
from tests.review.factories import build_dataset

ROOT = Path(__file__).resolve().parents[2]
FILES = ("manifest.json", "samples.txt", "annotations.jsonl", "steps.csv", "SHA256SUMS")


@pytest.fixture
def release(db, admin_user):
    build_dataset(author=admin_user)
    return release_freeze(name="egointent_v1", author=admin_user)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_export_writes_the_five_files_whose_hashes_are_the_frozen_ones(release, tmp_path):
    bundle = release_export(release=release, path=tmp_path / "egointent_v1")
    assert sorted(p.name for p in bundle.iterdir()) == sorted(FILES)
    assert sha(bundle / "manifest.json") == release.manifest_sha256
    assert sha(bundle / "samples.txt") == release.sample_list_sha256
    assert sha(bundle / "annotations.jsonl") == release.records_sha256
    assert (bundle / "manifest.json").read_text() == release.manifest_text
    ids = (bundle / "samples.txt").read_text().splitlines()
    assert ids == sorted(ids) and len(ids) == 43
    lines = (bundle / "annotations.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["sample_id"] for line in lines] == ids
    sums = (bundle / "SHA256SUMS").read_text().splitlines()
    assert sums == [f"{sha(bundle / n)}  {n}" for n in sorted(FILES[:4])]
    header = (bundle / "steps.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header.startswith("sample_id,cutoff_us,end_us,")
    assert bundle_verify(bundle).ok


def test_a_zip_bundle_verifies_the_same_and_is_byte_reproducible(release, tmp_path):
    first = release_export(release=release, path=tmp_path / "a.zip", as_zip=True)
    second = release_export(release=release, path=tmp_path / "b.zip", as_zip=True)
    assert first.read_bytes() == second.read_bytes()
    assert zipfile.ZipFile(first).namelist() == [
        "annotations.jsonl",
        "manifest.json",
        "samples.txt",
        "steps.csv",
        "SHA256SUMS",
    ]
    report = bundle_verify(first)
    assert report.ok and report.manifest_sha256 == release.manifest_sha256


def test_export_refuses_an_existing_path(release, tmp_path):
    (tmp_path / "taken").mkdir()
    with pytest.raises(BundleError, match="already exists"):
        release_export(release=release, path=tmp_path / "taken")


def _tamper(bundle: Path, name: str, old: str, new: str) -> None:
    path = bundle / name
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "old", "new", "expected"),
    [
        (
            "annotations.jsonl",
            "grip the handle",
            "grab the handle",
            [
                "annotations.jsonl: SHA-256 is",
                "steps.csv: does not match",
                "manifest.json: records_sha256 is",
            ],
        ),
        ("steps.csv", "grip the handle", "grab the handle", ["steps.csv: SHA-256 is"]),
        ("samples.txt", "0", "1", ["samples.txt: SHA-256 is", "samples.txt: SHA-256 is"]),
        ("manifest.json", '"egointent_v1"', '"egointent_v9"', ["manifest.json: SHA-256 is"]),
        ("manifest.json", '"kind":', ' "kind":', ["manifest.json: not in canonical form"]),
    ],
    ids=["label", "csv", "sample-list", "manifest-name", "manifest-bytes"],
)
def test_verify_names_every_tampered_file(release, tmp_path, name, old, new, expected):
    bundle = release_export(release=release, path=tmp_path / "bundle")
    _tamper(bundle, name, old, new)
    problems = bundle_verify(bundle).problems
    for start in expected:
        assert any(p.startswith(start) for p in problems), problems
    err = io.StringIO()
    with pytest.raises(CommandError, match="mismatch"):
        call_command("verify_manifest", str(bundle), stderr=err)
    assert f"MISMATCH {expected[0]}" in err.getvalue()


def test_verify_refuses_a_record_holding_text_the_studio_does_not_store(release, tmp_path):
    """A bundle is text from outside too (studio/text.py): a NUL in a label is named by its line,
    and import_release writes nothing."""
    bundle = release_export(release=release, path=tmp_path / "bundle")
    _tamper(bundle, "annotations.jsonl", "grip the handle", "grip the\\u0000handle")
    problems = bundle_verify(bundle).problems
    assert any(
        p.startswith("annotations.jsonl line ") and "holds a NUL character (U+0000)" in p
        for p in problems
    ), problems


def test_verify_catches_a_bundle_recomputed_consistently_but_unlike_the_database(release, tmp_path):
    # A forger who rewrites a label and every hash in the bundle still differs from the release
    # frozen in this database, and verify_manifest says so.
    from annotation.releases import bundle_records, bundle_write

    bundle = release_export(release=release, path=tmp_path / "bundle")
    records = list(bundle_records(bundle))
    records[0]["local_intent"] = "forged"
    from studio.canonical import RecordStream, build_manifest

    stream = RecordStream()
    for r in records:
        stream.add(r)
    forged = build_manifest(
        kind="release", name="egointent_v1", record_format="release-step/2", stream=stream
    )
    bundle_write(path=tmp_path / "forged", manifest=forged, records=records)
    assert bundle_verify(tmp_path / "forged").ok
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command("verify_manifest", str(tmp_path / "forged"), stderr=err)
    assert "was frozen with " + release.manifest_sha256 in err.getvalue()


def test_verify_reports_missing_files_and_a_clean_bundle_passes(release, tmp_path):
    bundle = release_export(release=release, path=tmp_path / "bundle")
    out = io.StringIO()
    call_command("verify_manifest", str(bundle), stdout=out)
    assert release.manifest_sha256 in out.getvalue()
    assert "matches the release in this database" in out.getvalue()
    (bundle / "steps.csv").unlink()
    assert "steps.csv: missing from the bundle" in bundle_verify(bundle).problems


def test_export_refuses_rows_that_no_longer_match_the_frozen_hashes(release, tmp_path):
    if connection.vendor == "postgresql":
        pytest.skip("PostgreSQL triggers refuse the tampering itself (tested elsewhere)")
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE annotation_releasestep SET next_step = 'tampered' WHERE id = %s",
            [release.steps.first().pk],
        )
    with pytest.raises(BundleError, match="no longer match the frozen manifest: records_sha256"):
        release_export(release=release, path=tmp_path / "bundle")
    assert not (tmp_path / "bundle").exists()


def test_importing_the_same_bundle_again_returns_the_release_already_there(release, tmp_path):
    bundle = release_export(release=release, path=tmp_path / "bundle")
    assert release_import(path=bundle) == release
    assert Release.objects.count() == 1


def test_a_tampered_bundle_is_refused_on_import_and_nothing_is_written(release, tmp_path):
    bundle = release_export(release=release, path=tmp_path / "bundle")
    _tamper(bundle, "annotations.jsonl", "grip the handle", "grab the handle")
    with pytest.raises(ValidationError, match="does not verify"):
        release_import(path=bundle)
    assert Release.objects.count() == 1
    with pytest.raises(CommandError, match=r"annotations\.jsonl"):
        call_command("import_release", str(bundle))


def test_a_subset_manifest_bundle_is_not_imported_as_a_release(release, tmp_path):
    from annotation.releases import bundle_records, bundle_write
    from studio.canonical import RecordStream, build_manifest

    bundle = release_export(release=release, path=tmp_path / "bundle")
    records = [r | {"duration_bin": 0, "group": None} for r in list(bundle_records(bundle))[:3]]
    stream = RecordStream()
    for r in records:
        stream.add(r)
    header = build_manifest(kind="audit", name="x", record_format="subset-step/2", stream=stream)
    bundle_write(path=tmp_path / "subset", manifest=header, records=records)
    with pytest.raises(ValidationError, match="only releases can be imported"):
        release_import(path=tmp_path / "subset")


def _manage(env: dict, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.timeout(900)  # migrates a fresh database in subprocesses: minutes on a loaded machine
@pytest.mark.django_db(transaction=True)
def test_import_into_an_empty_instance_reproduces_the_same_hashes(admin_user, tmp_path):
    build_dataset(author=admin_user)
    release = release_freeze(name="egointent_v1", author=admin_user)
    exported = release_export(release=release, path=tmp_path / "out.zip", as_zip=True)
    # A fresh instance in another process, with none of the videos or steps: an empty SQLite
    # database, whatever database this test runs on.
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT),
        STUDIO_VAR_DIR=str(tmp_path / "var"),
        DATABASE_URL=f"sqlite:///{tmp_path / 'fresh.sqlite3'}",
    )
    env.pop("TEST_DATABASE_NAME", None)
    _manage(env, "migrate", "--noinput", "-v", "0")
    out = _manage(env, "import_release", str(exported))
    assert release.manifest_sha256 in out and release.sample_list_sha256 in out
    _manage(env, "export_release", "egointent_v1", str(tmp_path / "again"))
    again = tmp_path / "again"
    with zipfile.ZipFile(exported) as original:
        for name in FILES:
            assert (again / name).read_bytes() == original.read(name), name
    assert "OK release egointent_v1: 43 samples" in _manage(env, "verify_manifest", str(again))
    assert ReleaseStep.objects.filter(release=release).count() == 43


def test_the_few_lines_of_the_docs_recompute_both_hashes(release, tmp_path):
    # The recipe of docs/manifests.md, run as written (apart from the bundle path).
    bundle = release_export(release=release, path=tmp_path / "egointent_v1")

    def data(name):
        return (bundle / name).read_bytes()

    def sha256(raw):
        return hashlib.sha256(raw).hexdigest()

    m = json.loads(data("manifest.json"))
    ids = [json.loads(line)["sample_id"] for line in data("annotations.jsonl").splitlines()]
    assert ids == sorted(ids) and sha256(data("samples.txt")) == m["sample_list_sha256"]
    assert sha256("".join(i + "\n" for i in ids).encode()) == release.sample_list_sha256
    assert sha256(data("annotations.jsonl")) == m["records_sha256"]
    canonical = json.dumps(
        m, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False
    ).encode("utf-8")
    assert sha256(canonical) == sha256(data("manifest.json")) == release.manifest_sha256

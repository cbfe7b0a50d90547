"""publish_benchmark: a frozen set as a folder that needs nothing of the studio, checked by
verify_manifest byte for byte, and rebuilt by import_benchmark into an empty instance."""

import hashlib
import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction

from scoring.publish.layout import record_of

pytestmark = pytest.mark.django_db


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sums(folder: Path) -> dict[str, str]:
    lines = (folder / "SHA256SUMS").read_text().splitlines()
    return {name: digest for digest, name in (line.split("  ", 1) for line in lines)}


def rows(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "data/test.jsonl").read_text().splitlines()]


def verify(path) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("verify_manifest", str(path), stdout=out, stderr=err)
    except CommandError as exc:
        err.write(str(exc))
    return out.getvalue(), err.getvalue()


def test_it_publishes_rows_media_card_and_tasks(published_release, publish):
    folder = publish("media")
    listed = sums(folder)
    on_disk = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert set(listed) == on_disk - {"SHA256SUMS"}  # every byte is covered
    assert all(sha(folder / name) == digest for name, digest in listed.items())

    published = rows(folder)
    assert len(published) == 2
    # Both hashes recompute from the rows alone (and manifest.json for the other members).
    records = [record_of(row) for row in published]
    canonical = [
        json.dumps(r, ensure_ascii=False, sort_keys=True, separators=(",", ":")) for r in records
    ]
    manifest = json.loads((folder / "manifest.json").read_text())
    ids = sorted(r["sample_id"] for r in records)
    assert hashlib.sha256("".join(i + "\n" for i in ids).encode()).hexdigest() == (
        published_release.sample_list_sha256
    )
    assert (
        hashlib.sha256("".join(c + "\n" for c in canonical).encode()).hexdigest()
        == (manifest["records_sha256"])
    )
    assert sha(folder / "manifest.json") == published_release.manifest_sha256

    for row in published:
        clip = folder / row["media_official_clip"]
        assert sha(clip) == row["media_official_clip_sha256"] == clip.stem
        assert clip.read_bytes()[4:8] == b"ftyp"
        assert len(row["media_ordered_frames"]) == 16
        for path, digest in zip(
            row["media_ordered_frames"], row["media_ordered_frames_sha256"], strict=True
        ):
            assert sha(folder / path) == digest == listed[path]
        # An images endpoint is sent the Official window's 16 frames: the Ordered frame set.
        assert row["media_official_frames"] == row["media_ordered_frames"]

    table = pq.read_table(folder / "data/test.parquet")
    assert table.to_pylist() == published
    assert str(table.schema.field("plausible_next_steps").type).startswith("list<")

    card = (folder / "README.md").read_text()
    header = yaml.safe_load(card.split("---\n")[1])
    features = header["dataset_info"][0]["features"]
    assert [f["name"] for f in features] == table.column_names
    assert {"name": "tags", "sequence": "string"} in features  # typed even when all empty
    assert header["configs"][0]["data_files"][0]["path"] == "data/test.parquet"
    assert published_release.manifest_sha256 in card and "[start_us, cutoff_us)" in card

    described = json.loads((folder / "publish.json").read_text())
    assert described["conditions"] == ["official", "ordered"]
    assert sorted(p.name for p in (folder / "lmms_eval").glob("*.yaml")) == [
        "intent_studio_media_official.yaml",
        "intent_studio_media_official_video.yaml",
        "intent_studio_media_ordered.yaml",
    ]
    out, err = verify(folder)
    assert out.startswith("OK release media: 2 samples") and not err


def test_publishing_twice_gives_the_same_bytes(published_release, publish):
    assert (publish("media") / "SHA256SUMS").read_bytes() == (
        publish("media") / "SHA256SUMS"
    ).read_bytes()


def test_verify_manifest_names_a_changed_byte(published_release, publish):
    folder = publish("media")
    frame = folder / rows(folder)[0]["media_ordered_frames"][5]
    data = bytearray(frame.read_bytes())
    data[100] ^= 1
    frame.write_bytes(bytes(data))
    _out, err = verify(folder)
    assert f"MISMATCH {frame.relative_to(folder).as_posix()}: SHA-256 is" in err


def test_verify_manifest_catches_rows_rewritten_consistently(published_release, publish):
    """A row whose label was changed, with SHA256SUMS rewritten to match, still fails: its record
    is no longer the set's record."""
    folder = publish("media")
    lines = (folder / "data/test.jsonl").read_text().splitlines(keepends=True)
    row = json.loads(lines[1])
    row["next_step"] = "Something else entirely"
    lines[1] = json.dumps(row, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"
    (folder / "data/test.jsonl").write_text("".join(lines))
    listed = sums(folder)
    listed["data/test.jsonl"] = sha(folder / "data/test.jsonl")
    (folder / "SHA256SUMS").write_text("".join(f"{d}  {n}\n" for n, d in sorted(listed.items())))
    _out, err = verify(folder)
    assert "MISMATCH data/test.jsonl line 2: its record is not line 2 of annotations.jsonl" in err
    assert "MISMATCH data/test.parquet row 2: differs from data/test.jsonl line 2" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope", "official"], "no frozen release or manifest named nope"),
        (["media", "official,telepathy"], "unknown condition(s) telepathy"),
        (["media", "official,official"], "distinct conditions"),
    ],
)
def test_bad_input_gets_a_clear_error_and_writes_nothing(
    published_release, tmp_path, args, message
):
    out = tmp_path / "out"
    with pytest.raises(CommandError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call_command("publish_benchmark", args[0], str(out), "--conditions", args[1])
    assert list(tmp_path.iterdir()) == []


def test_an_existing_target_is_never_overwritten(published_release, tmp_path):
    (tmp_path / "out").mkdir()
    with pytest.raises(CommandError, match="already exists"):
        call_command("publish_benchmark", "media", str(tmp_path / "out"))
    assert list((tmp_path / "out").iterdir()) == []


def test_a_step_without_a_window_is_null_and_named(published_release, publish):
    folder = publish("media", conditions="next_visible")
    published = rows(folder)
    last = max(published, key=lambda r: r["start_us"])
    assert last["media_next_visible_clip"] is None and last["media_next_visible_frames"] is None
    described = json.loads((folder / "publish.json").read_text())
    assert [u["sample_id"] for u in described["unavailable"]] == [last["sample_id"]]
    assert verify(folder)[1] == ""


def _empty_instance_import(path):
    """Roll this test's database back to empty, then import (the folder stays on disk)."""
    from scoring.publish.imports import benchmark_import

    return benchmark_import(path=path)


def test_import_into_an_empty_instance_reproduces_hashes_and_media(
    empty_point, published_release, publish
):
    from annotation.models import Release
    from scoring.models import ImportedMedium

    point = empty_point
    folder = publish("media")
    expected = (published_release.sample_list_sha256, published_release.manifest_sha256)
    transaction.savepoint_rollback(point)
    assert not Release.objects.exists()

    imported = _empty_instance_import(folder)
    release = imported.release
    assert (release.sample_list_sha256, release.manifest_sha256) == expected
    assert imported.media_files == len(list((folder / "media").iterdir()))
    from django.core.files.storage import default_storage

    for medium in ImportedMedium.objects.all():
        assert sha(Path(default_storage.path(medium.path))) == medium.sha256
    assert ImportedMedium.objects.filter(column="media_ordered_frames").count() == 2 * 16
    again = _empty_instance_import(folder)  # the same folder again: what is there
    assert not again.created and again.release == release


def test_a_manifest_ships_its_own_records_and_its_release(empty_point, small_manifest, publish):
    from annotation.models import Release
    from review.models import Manifest

    point = empty_point
    folder = publish("media-sub")
    expected = (small_manifest.sample_list_sha256, small_manifest.manifest_sha256)
    release_hash = small_manifest.release.manifest_sha256
    transaction.savepoint_rollback(point)

    (row,) = rows(folder)
    assert row["duration_bin"] == 2 and row["group"] is None  # subset-step/1
    assert (folder / "release" / "manifest.json").is_file()
    assert sha(folder / "release" / "manifest.json") == release_hash
    assert verify(folder)[1] == ""

    imported = _empty_instance_import(folder)
    assert (imported.manifest.sample_list_sha256, imported.manifest.manifest_sha256) == expected
    assert Release.objects.get().manifest_sha256 == release_hash
    assert Manifest.objects.get().name == "media-sub"


def test_a_zip_verifies_and_imports(empty_point, published_release, publish):
    point = empty_point
    archive = publish("media", conditions="official", as_zip=True)
    expected = published_release.manifest_sha256
    transaction.savepoint_rollback(point)
    out, err = verify(archive)
    assert out.startswith("OK release media") and not err
    assert _empty_instance_import(archive).release.manifest_sha256 == expected


def test_import_refuses_a_changed_folder_and_writes_nothing(
    empty_point, published_release, publish
):
    from annotation.models import Release

    point = empty_point
    folder = publish("media", conditions="official")
    transaction.savepoint_rollback(point)
    (folder / "README.md").write_text("changed")
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="does not verify"):
        _empty_instance_import(folder)
    assert not Release.objects.exists()


def _held(release, *, expired: bool):
    """The first step's Official clip, claimed by another worker (whose lease has run out)."""
    from datetime import timedelta

    from media.models import RenderedMedia
    from scoring.publish.media import media_plan
    from scoring.runs.services import target_steps
    from studio.services import now

    plan = media_plan(target_steps(release=release, manifest=None), ["official"], seed=0)
    medium = next(iter(plan.values())).media["media_official_clip"]
    RenderedMedia.objects.filter(pk=medium.pk).update(
        status=RenderedMedia.Status.RENDERING,
        lease_owner="elsewhere:1:token",
        lease_expires_at=now() + timedelta(seconds=-5 if expired else 600),
    )
    return medium


def test_a_medium_whose_worker_died_is_taken_over(published_release, publish):
    from media.models import RenderedMedia

    medium = _held(published_release, expired=True)
    folder = publish("media", conditions="official")
    medium.refresh_from_db()
    assert medium.status == RenderedMedia.Status.READY
    assert verify(folder)[1] == ""


def test_a_medium_another_worker_still_renders_is_waited_for(
    published_release, tmp_path, monkeypatch
):
    import scoring.publish.media

    monkeypatch.setattr(scoring.publish.media, "WAIT_SECONDS", 1.5)
    _held(published_release, expired=False)
    with pytest.raises(CommandError, match="still being rendered elsewhere after 2 s"):
        call_command(
            "publish_benchmark", "media", str(tmp_path / "out"), "--conditions", "official"
        )
    assert not (tmp_path / "out").exists()


def test_a_listed_path_that_leaves_the_folder_is_refused(published_release, publish):
    folder = publish("media", conditions="official")
    with open(folder / "SHA256SUMS", "a") as sums_file:
        sums_file.write(f"{'0' * 64}  ../outside.txt\n")
    _out, err = verify(folder)
    assert "'../outside.txt' is not a bundle file" in err

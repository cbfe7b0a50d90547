"""Frozen manifests drawn from a release: literal hashes on any database, immutable, exportable."""

import io
import json

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import IntegrityError, connection, transaction

from annotation.models import FrozenError
from annotation.releases import bundle_verify, release_freeze
from review.manifests.services import (
    design_create,
    design_preview,
    design_update,
    manifest_export,
    manifest_freeze,
)
from review.models import Manifest, ManifestSample
from tests.review.factories import build_dataset

SEED = 20260713
# (method, params) -> (samples, sample list SHA-256, manifest SHA-256) for egointent_v1 of
# tests.review.factories, design named m_<method>, kind audit. Literal values: SQLite and
# PostgreSQL must both give them, whatever the insertion order.
KNOWN = {
    "stratified": (
        {"target_n": 12},
        12,
        "e693008760e1c42f6a9f55fcbb3768c3a8ad36a4ffa545f2370544dd3f1ebcbb",
        "b8acdf302d35171807fa1e9519e4b0bc1ca144cb8aa75fcc2891d04a65a68ecf",
    ),
    "quota": (
        {"scene_quota": 4, "bin_targets": [3, 3, 3, 3]},
        12,
        "13e2881ae0a0e0f457f41b5df23634eec7e03765e6c6960f99c237fefce27213",
        "7538276cd44a744b5c238c163d00e06a19e8dba2f5a418d4f67f56f83e6ab8e2",
    ),
    "complete_groups": (
        {"n_groups": 2},
        15,
        "154b0d46b98dd37057e376a8fa255486cb3b879e3819cb1c32930d0459550a3e",
        "8286d4f8b6045034e4eca6071dc31825d5d48eb577eab1e0128e6a1224240036",
    ),
}


def _design(release, admin_user, method="stratified", params=None, name=None, seed=SEED):
    return design_create(
        author=admin_user,
        name=name or f"m_{method}",
        method=method,
        release=release,
        seed=seed,
        params=KNOWN[method][0] if params is None else params,
        kind="audit",
    )


@pytest.mark.django_db
@pytest.mark.parametrize("shuffle_seed", [None, 11], ids=["plain", "shuffled"])
@pytest.mark.parametrize("method", sorted(KNOWN))
def test_manifest_hashes_are_the_known_literals(admin_user, method, shuffle_seed):
    build_dataset(author=admin_user, shuffle_seed=shuffle_seed)
    release = release_freeze(name="egointent_v1", author=admin_user)
    manifest = manifest_freeze(design=_design(release, admin_user, method), author=admin_user)
    _, count, sample_list_sha, manifest_sha = KNOWN[method]
    assert manifest.sample_count == count
    assert manifest.sample_list_sha256 == sample_list_sha
    assert manifest.manifest_sha256 == manifest_sha


def test_manifest_records_design_seed_and_release_hashes(release, admin_user):
    manifest = manifest_freeze(design=_design(release, admin_user), author=admin_user)
    header = json.loads(manifest.manifest_text)
    assert header["kind"] == "audit" and header["method"] == "stratified"
    assert header["seed"] == SEED
    assert header["design"] == {
        "target_n": 12,
        "strata": ["video", "bin"],
        "cover": ["scene", "video", "bin"],
        "bin_edges_us": [1_000_000, 2_000_000, 4_000_000],
        "duration": "step",
    }
    assert header["release"] == {
        "name": "egointent_v1",
        "manifest_sha256": release.manifest_sha256,
        "sample_list_sha256": release.sample_list_sha256,
    }


def test_preview_shows_achieved_counts_next_to_targets(release, admin_user):
    report = design_preview(design=_design(release, admin_user, "quota"))
    assert report["achieved_n"] == report["target_n"] == 12
    assert [r["achieved"] for r in report["scenes"]] == [r["target"] for r in report["scenes"]]
    assert [(r["target"], r["achieved"]) for r in report["bin_totals"]] == [(3, 3)] * 4
    assert all(r["achieved"] >= 1 for r in report["videos"])
    assert sum(r["achieved"] for r in report["scene_bin"]) == 12


def test_an_infeasible_design_fails_with_its_message_and_writes_nothing(release, admin_user):
    design = _design(release, admin_user, "quota", {"scene_quota": 1})
    message = "Scene indoor/kitchen has 2 source videos but a quota of 1"
    with pytest.raises(ValidationError, match=message):
        design_preview(design=design)
    with pytest.raises(ValidationError, match=message):
        manifest_freeze(design=design, author=admin_user)
    assert not Manifest.objects.exists() and not ManifestSample.objects.exists()


def test_bad_design_parameters_are_refused(release, admin_user):
    with pytest.raises(ValidationError, match="target_n"):
        _design(release, admin_user, params={"target_n": -1})
    with pytest.raises(ValidationError, match="seed"):
        _design(release, admin_user, seed=-5)


def test_a_taken_manifest_name_is_refused(release, admin_user):
    design = _design(release, admin_user)
    manifest_freeze(design=design, author=admin_user)
    with pytest.raises(ValidationError, match="already exists"):
        manifest_freeze(design=design, author=admin_user)


def test_editing_the_draft_design_after_freezing_changes_nothing_frozen(release, admin_user):
    design = _design(release, admin_user)
    manifest = manifest_freeze(design=design, author=admin_user)
    design_update(design=design, values={"seed": 1, "params": {"target_n": 20}})
    again = Manifest.objects.get(pk=manifest.pk)
    assert again.manifest_text == manifest.manifest_text
    assert again.samples.count() == 12


def test_group_manifest_holds_whole_groups(release, admin_user):
    manifest = manifest_freeze(
        design=_design(release, admin_user, "complete_groups"), author=admin_user
    )
    groups = set(manifest.samples.values_list("group", flat=True))
    assert len(groups) == 2
    steps = release.steps.filter(video_sha256__in=groups).count()
    assert manifest.sample_count == steps


def test_a_frozen_manifest_refuses_every_edit_and_delete(release, admin_user):
    manifest = manifest_freeze(design=_design(release, admin_user), author=admin_user)
    manifest.seed = 1
    with pytest.raises(FrozenError):
        manifest.save()
    with pytest.raises(FrozenError):
        manifest.delete()
    with pytest.raises(FrozenError):
        Manifest.objects.filter(pk=manifest.pk).update(seed=1)
    with pytest.raises(FrozenError):
        Manifest.objects.all().delete()
    sample = manifest.samples.first()
    sample.duration_bin = 3
    with pytest.raises(FrozenError):
        sample.save()
    with pytest.raises(FrozenError):
        sample.delete()
    with pytest.raises(FrozenError):
        ManifestSample.objects.filter(manifest=manifest).update(group="x")
    extra = ManifestSample(
        manifest=manifest,
        release_step=release.steps.exclude(sample_id__in=manifest.samples.values("sample_id"))[0],
        sample_id=release.steps.exclude(sample_id__in=manifest.samples.values("sample_id"))[
            0
        ].sample_id,
        duration_bin=0,
    )
    with pytest.raises(FrozenError):
        extra.save()
    with pytest.raises(FrozenError):
        ManifestSample.objects.bulk_create([extra])
    assert Manifest.objects.get(pk=manifest.pk).seed == SEED
    assert manifest.samples.count() == 12


@pytest.mark.postgres
def test_postgres_refuses_raw_sql_edits_of_a_frozen_manifest(release, admin_user):
    manifest = manifest_freeze(design=_design(release, admin_user), author=admin_user)
    for sql in (
        "UPDATE review_manifest SET seed = 1 WHERE id = %s",
        "DELETE FROM review_manifest WHERE id = %s",
        "UPDATE review_manifestsample SET duration_bin = 2 WHERE manifest_id = %s",
        "DELETE FROM review_manifestsample WHERE manifest_id = %s",
    ):
        with (
            pytest.raises(IntegrityError, match=r"frozen|never"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql, [manifest.pk])


def test_manifest_bundle_verifies_and_names_a_tampered_file(release, admin_user, tmp_path):
    manifest = manifest_freeze(design=_design(release, admin_user), author=admin_user)
    out = io.StringIO()
    call_command("export_manifest", manifest.name, str(tmp_path / "audit"), stdout=out)
    bundle = tmp_path / "audit"
    report = bundle_verify(bundle)
    assert report.ok and report.manifest_sha256 == manifest.manifest_sha256
    assert report.sample_list_sha256 == manifest.sample_list_sha256
    first = json.loads((bundle / "annotations.jsonl").read_text().splitlines()[0])
    assert set(first) >= {"sample_id", "scene", "video_sha256", "duration_bin", "group"}
    assert first["group"] is None and isinstance(first["duration_bin"], int)
    call_command("verify_manifest", str(bundle), stdout=out)
    assert "matches the manifest in this database" in out.getvalue()
    lines = (bundle / "samples.txt").read_text().splitlines()
    (bundle / "samples.txt").write_text("\n".join(lines[:-1]) + "\n")
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command("verify_manifest", str(bundle), stderr=err)
    assert "MISMATCH samples.txt: SHA-256 is" in err.getvalue()


def test_manifest_zip_export(release, admin_user, tmp_path):
    manifest = manifest_freeze(design=_design(release, admin_user), author=admin_user)
    path = manifest_export(manifest=manifest, path=tmp_path / "audit.zip", as_zip=True)
    assert bundle_verify(path).manifest_sha256 == manifest.manifest_sha256

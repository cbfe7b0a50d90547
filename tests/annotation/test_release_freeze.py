"""Freezing releases: a complete snapshot, literal hashes on any database, immutability, and
corrections that name their parent instead of editing it."""

import json

import pytest
from django.core.exceptions import ValidationError
from django.db import connection

from annotation.models import FrozenError, MicroStep, Release, ReleaseStep
from annotation.releases import release_correct, release_freeze, release_records
from annotation.services import step_create, step_retract, step_update
from tests.review.factories import build_dataset, step_plan, step_uid, video_sha

# Known answers for tests.review.factories' data set frozen as "egointent_v1". The same literal
# values must come out of SQLite and PostgreSQL (CI runs both) and any insertion order.
KNOWN_SAMPLE_LIST_SHA256 = "5c50f5b4c598e2660e007e10c6bf5f876d2a525c7d6a26d8f971e4a7d4268397"
KNOWN_MANIFEST_SHA256 = "493969291d90eb6d5363b0c2e3f688584d1aafe767a9716cc74207b591a218ba"
# The same data set frozen with records of release-step/1 (before every record carried tags):
# a release frozen then keeps this hash forever (tests/annotation/test_release_formats.py).
KNOWN_V1_MANIFEST_SHA256 = "f84e1e5131f5025c06d29784f1008bfd26afb26052fd2abbf029a01da811fd83"


@pytest.fixture
def dataset(db, admin_user):
    return build_dataset(author=admin_user)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "shuffle_seed", [None, 7, 2026], ids=["plain", "shuffled-7", "shuffled-2026"]
)
def test_release_hashes_are_the_known_literals_whatever_the_insertion_order(
    admin_user, shuffle_seed
):
    build_dataset(author=admin_user, shuffle_seed=shuffle_seed)
    release = release_freeze(name="egointent_v1", author=admin_user)
    assert release.sample_count == len(step_plan()) == 43
    assert release.sample_list_sha256 == KNOWN_SAMPLE_LIST_SHA256
    assert release.manifest_sha256 == KNOWN_MANIFEST_SHA256


def test_snapshot_holds_every_active_step_with_times_labels_scene_and_video_sha(
    dataset, admin_user
):
    gone = MicroStep.objects.get(uid=step_uid("yard-a", 0))
    step_retract(step=gone, author=admin_user, version=gone.version, reason="duplicate")
    release = release_freeze(name="egointent_v1", author=admin_user)
    records = {r["sample_id"]: r for r in release_records(release=release)}
    assert len(records) == 42 and str(gone.uid) not in records
    record = records[str(step_uid("kitchen-a", 8))]
    plan = next(p for p in step_plan() if p["uid"] == step_uid("kitchen-a", 8))
    assert record["scene"] == "indoor/kitchen"
    assert record["video_sha256"] == video_sha("kitchen-a")
    for key in ("start_us", "cutoff_us", "outcome_us", "end_us", "local_intent", "next_step"):
        assert record[key] == plan[key]
    assert record["plausible_next_steps"] == plan["plausible_next_steps"]
    manifest = json.loads(release.manifest_text)
    assert manifest["kind"] == "release" and manifest["parent"] is None


def test_changing_one_label_changes_the_release_hash_but_not_the_sample_list(dataset, admin_user):
    first = release_freeze(name="egointent_v1", author=admin_user)
    step = MicroStep.objects.get(uid=step_uid("workshop-b", 2))
    step_update(
        step=step, author=admin_user, version=step.version, values={"next_step": "put it down (3)."}
    )
    second = release_freeze(name="egointent_v2", author=admin_user)
    assert second.sample_list_sha256 == first.sample_list_sha256
    assert second.records_sha256 != first.records_sha256
    assert second.manifest_sha256 != first.manifest_sha256


def test_a_correction_is_a_new_release_naming_its_parent_and_what_changed(dataset, admin_user):
    parent = release_freeze(name="egointent_v1", author=admin_user)
    edited = MicroStep.objects.get(uid=step_uid("kitchen-b", 1))
    step_update(
        step=edited,
        author=admin_user,
        version=edited.version,
        action="correct",
        values={"local_intent": "lift the lid", "plausible_next_steps": ["stir"]},
    )
    # The last step of its video, so no other step changes position.
    gone = MicroStep.objects.get(uid=step_uid("kitchen-b", 5))
    step_retract(step=gone, author=admin_user, version=gone.version)
    added = step_create(
        video=dataset["kitchen-b"],
        author=admin_user,
        start_us=100_000_000,
        cutoff_us=100_500_000,
        outcome_us=100_600_000,
        end_us=101_000_000,
        local_intent="a",
        procedural_intent="b",
        next_step="c",
    )
    child = release_correct(
        parent=parent, name="egointent_v1.1", author=admin_user, note="audit corrections"
    )
    manifest = child.manifest
    assert child.parent == parent
    assert manifest["parent"] == {"name": "egointent_v1", "manifest_sha256": parent.manifest_sha256}
    assert manifest["changes"] == {
        "added": [str(added.uid)],
        "removed": [str(gone.uid)],
        "changed": [
            {"sample_id": str(edited.uid), "fields": ["local_intent", "plausible_next_steps"]}
        ],
    }
    # The parent is untouched.
    assert Release.objects.get(pk=parent.pk).manifest_sha256 == parent.manifest_sha256
    assert ReleaseStep.objects.get(release=parent, sample_id=edited.uid).local_intent != (
        "lift the lid"
    )


def test_a_correction_without_changes_is_refused_and_writes_nothing(dataset, admin_user):
    parent = release_freeze(name="egointent_v1", author=admin_user)
    before = ReleaseStep.objects.count()
    with pytest.raises(ValidationError, match="Nothing changed since release egointent_v1"):
        release_correct(parent=parent, name="egointent_v1.1", author=admin_user)
    assert not Release.objects.filter(name="egointent_v1.1").exists()
    assert ReleaseStep.objects.count() == before


def test_steps_with_missing_labels_block_a_freeze_unless_allowed(dataset, admin_user):
    step_create(
        video=dataset["yard-a"],
        author=admin_user,
        start_us=200_000_000,
        cutoff_us=200_500_000,
        outcome_us=200_500_000,
        end_us=201_000_000,
    )
    with pytest.raises(ValidationError, match="1 of 44 steps still miss a label"):
        release_freeze(name="egointent_v1", author=admin_user)
    assert not Release.objects.exists()
    release = release_freeze(name="egointent_v1", author=admin_user, allow_incomplete=True)
    assert release.sample_count == 44


@pytest.mark.parametrize("name", ["Bad Name", "", "x" * 81, "égal"])
def test_a_malformed_name_is_refused(dataset, admin_user, name):
    with pytest.raises(ValidationError):
        release_freeze(name=name, author=admin_user)
    assert not Release.objects.exists()


def test_a_taken_name_is_refused(dataset, admin_user):
    release_freeze(name="egointent_v1", author=admin_user)
    with pytest.raises(ValidationError, match="already exists"):
        release_freeze(name="egointent_v1", author=admin_user)


def test_nothing_to_freeze_is_refused(db, admin_user):
    with pytest.raises(ValidationError, match="no active steps"):
        release_freeze(name="egointent_v1", author=admin_user)


def test_a_frozen_release_refuses_every_edit_and_delete(dataset, admin_user):
    release = release_freeze(name="egointent_v1", author=admin_user)
    release.note = "rewritten"
    with pytest.raises(FrozenError):
        release.save()
    with pytest.raises(FrozenError):
        release.delete()
    with pytest.raises(FrozenError):
        Release.objects.filter(pk=release.pk).update(name="other")
    with pytest.raises(FrozenError):
        Release.objects.all().delete()
    step = release.steps.first()
    step.local_intent = "rewritten"
    with pytest.raises(FrozenError):
        step.save()
    with pytest.raises(FrozenError):
        step.delete()
    with pytest.raises(FrozenError):
        ReleaseStep.objects.filter(release=release).update(local_intent="x")
    with pytest.raises(FrozenError):
        ReleaseStep.objects.filter(release=release).delete()
    with pytest.raises(FrozenError):
        ReleaseStep.objects.bulk_update([step], ["local_intent"])
    extra = ReleaseStep(
        release=release,
        sample_id=step_uid("new", 0),
        scene_slug="indoor/kitchen",
        video_sha256=video_sha("x"),
        position=0,
        start_us=0,
        cutoff_us=1,
        outcome_us=1,
        end_us=1,
    )
    with pytest.raises(FrozenError):
        extra.save()
    with pytest.raises(FrozenError):
        ReleaseStep.objects.bulk_create([extra])
    fresh = Release.objects.get(pk=release.pk)
    assert fresh.note == "" and fresh.manifest_sha256 == release.manifest_sha256
    assert ReleaseStep.objects.filter(release=release, local_intent="rewritten").count() == 0


@pytest.mark.postgres
def test_postgres_refuses_raw_sql_edits_of_a_frozen_release(dataset, admin_user):
    from django.db import IntegrityError, transaction

    release = release_freeze(name="egointent_v1", author=admin_user)
    statements = [
        ("UPDATE annotation_release SET note = 'x' WHERE id = %s", [release.pk]),
        ("DELETE FROM annotation_release WHERE id = %s", [release.pk]),
        (
            "UPDATE annotation_releasestep SET local_intent = 'x' WHERE release_id = %s",
            [release.pk],
        ),
        ("DELETE FROM annotation_releasestep WHERE release_id = %s", [release.pk]),
        (
            "INSERT INTO annotation_releasestep (release_id, sample_id, scene_slug, video_sha256,"
            " position, start_us, cutoff_us, outcome_us, end_us, local_intent, procedural_intent,"
            " next_step, plausible_next_steps) VALUES (%s, gen_random_uuid(), 'indoor/kitchen',"
            " repeat('a', 64), 0, 0, 1, 1, 1, '', '', '', '[]')",
            [release.pk],
        ),
    ]
    for sql, params in statements:
        with (
            pytest.raises(IntegrityError, match=r"frozen|never"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql, params)

"""Step tags (docs/steps-jsonl.md): their rules, every way in (services, JSON Lines, workspace
API) and out (export, frozen releases and manifests), and that a release of steps without tags
keeps the hashes it had before tags existed."""

from __future__ import annotations

import io
import json

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from annotation.models import MicroStep, ReleaseStep, StepRevision
from annotation.releases import release_correct, release_freeze, release_records
from annotation.services import revision_diff, step_create, step_update
from annotation.tags import clean_tags, tag_strata
from review.manifests.services import design_create, manifest_freeze, manifest_records
from tests.annotation.test_release_freeze import KNOWN_MANIFEST_SHA256
from tests.review.factories import build_dataset, step_uid

S = 1_000_000


def test_tags_are_labels_or_key_value_stored_sorted_lower_case_and_unique():
    assert clean_tags([" Occluded", "action_type:POUR", "occluded", ""]) == [
        "action_type:pour",
        "occluded",
    ]
    assert clean_tags([]) == []


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("action_type:pour", "list of texts"),
        ([1], "list of texts"),
        (["two words"], "is not a tag"),
        (["a:b:c"], "is not a tag"),
        ([":pour"], "is not a tag"),
        (["<script>"], "is not a tag"),
        (["x" * 41], "is not a tag"),
        ([f"t{i}" for i in range(21)], "At most 20"),
        (["action_type:pour", "action_type:cut"], "One value per key: action_type"),
    ],
)
def test_a_bad_tag_is_refused_with_its_reason(value, message):
    with pytest.raises(ValidationError, match=message):
        clean_tags(value)


def test_tag_strata_have_one_stratum_per_key_and_per_label():
    strata = tag_strata([["action_type:pour", "occluded"], ["action_type:cut"], []])
    assert strata == {
        "tag:action_type": ["pour", "cut", ""],
        "tag:occluded": ["occluded", "", ""],
    }


def _step(video, author, start=0, **labels):
    return step_create(
        video=video,
        author=author,
        start_us=start,
        cutoff_us=start + S,
        outcome_us=start + S,
        end_us=start + 2 * S,
        **labels,
    )


def test_tags_are_edited_with_revisions_and_bad_tags_write_nothing(make_video, annotator):
    step = _step(make_video(), annotator, tags=["Action_Type:pour"])
    assert step.tags == ["action_type:pour"]
    step = step_update(
        step=step, author=annotator, version=step.version, values={"tags": ["occluded"]}
    )
    assert (step.version, step.tags) == (2, ["occluded"])
    revision = StepRevision.objects.get(step=step, version=2)
    assert revision.values["tags"] == ["occluded"]
    assert [d["name"] for d in revision_diff(revision)] == ["Tags"]
    with pytest.raises(ValidationError, match="One value per key"):
        step_update(step=step, author=annotator, version=2, values={"tags": ["k:a", "k:b"]})
    step.refresh_from_db()
    assert (step.version, step.tags) == (2, ["occluded"])


def test_steps_jsonl_carries_tags_and_reports_a_bad_tag_by_line(make_video, annotator, tmp_path):
    video = make_video()
    _step(video, annotator, tags=["action_type:pour", "occluded"])
    exported = tmp_path / "out.jsonl"
    call_command("export_steps", "-o", str(exported), stderr=io.StringIO())
    (line,) = exported.read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["tags"] == ["action_type:pour", "occluded"]
    good = json.loads(line) | {"uid": None, "start_us": 3 * S, "cutoff_us": 4 * S}
    good |= {"outcome_us": 4 * S, "end_us": 5 * S, "tags": ["Action_Type:cut"]}
    bad = good | {"start_us": 6 * S, "cutoff_us": 7 * S, "outcome_us": 7 * S, "end_us": 8 * S}
    bad["tags"] = ["not a tag"]
    path = tmp_path / "steps.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    from annotation.jsonl import ImportFailed, steps_import

    with pytest.raises(ImportFailed) as failed:
        steps_import(lines=path.read_text().splitlines(), author=annotator)
    assert [str(e) for e in failed.value.errors] == [
        "line 2: tags: 'not a tag' is not a tag: use a label or key:value of lower-case "
        "letters, digits, _ . - (at most 40 characters each)."
    ]
    assert MicroStep.objects.count() == 1
    path.write_text(json.dumps(good) + "\n", encoding="utf-8")
    assert steps_import(lines=path.read_text().splitlines(), author=annotator) == 1
    assert MicroStep.objects.get(start_us=3 * S).tags == ["action_type:cut"]


def test_the_workspace_api_saves_and_returns_tags(login, annotator, video):
    step = _step(video, annotator)
    client = login(annotator)
    r = client.patch(
        f"/api/annotation/steps/{step.pk}/", {"version": 1, "tags": ["occluded", "hand:left"]}
    )
    assert r.status_code == 200, r.content
    assert r.json()["steps"][0]["tags"] == ["hand:left", "occluded"]
    r = client.patch(f"/api/annotation/steps/{step.pk}/", {"version": 2, "tags": ["a b"]})
    assert r.status_code == 400 and "tags" in r.content.decode()
    step.refresh_from_db()
    assert (step.version, step.tags) == (2, ["hand:left", "occluded"])


@pytest.mark.django_db
def test_a_release_without_tags_keeps_its_known_hash_and_tags_enter_the_records(admin_user):
    build_dataset(author=admin_user)
    plain = release_freeze(name="egointent_v1", author=admin_user)
    assert plain.manifest_sha256 == KNOWN_MANIFEST_SHA256
    assert all("tags" not in r for r in release_records(release=plain))

    step = MicroStep.objects.get(uid=step_uid("kitchen-b", 1))
    step = step_update(
        step=step, author=admin_user, version=step.version, values={"tags": ["action_type:pour"]}
    )
    tagged = release_correct(parent=plain, name="egointent_v2", author=admin_user)
    assert tagged.manifest_sha256 != plain.manifest_sha256
    assert tagged.sample_list_sha256 == plain.sample_list_sha256
    records = {r["sample_id"]: r for r in release_records(release=tagged)}
    assert records[str(step.uid)]["tags"] == ["action_type:pour"]
    assert sum("tags" in r for r in records.values()) == 1
    changes = json.loads(tagged.manifest_text)["changes"]
    assert changes["changed"] == [{"sample_id": str(step.uid), "fields": ["tags"]}]
    assert ReleaseStep.objects.get(release=tagged, sample_id=step.uid).tags == ["action_type:pour"]

    # A manifest drawn from it carries the tag in that step's record only.
    design = design_create(
        author=admin_user,
        name="tagged_all",
        method="stratified",
        release=tagged,
        seed=3,
        params={"target_n": 43},
        kind="audit",
    )
    manifest = manifest_freeze(design=design, author=admin_user)
    subset = {r["sample_id"]: r for r in manifest_records(manifest=manifest)}
    assert subset[str(step.uid)]["tags"] == ["action_type:pour"]
    assert sum("tags" in r for r in subset.values()) == 1

    # Taking the tag off again gives back the release of before, byte for byte.
    step_update(step=step, author=admin_user, version=step.version, values={"tags": []})
    back = release_freeze(name="egointent_v3", author=admin_user)
    assert back.manifest_sha256 != KNOWN_MANIFEST_SHA256  # its name differs ...
    assert back.records_sha256 == plain.records_sha256  # ... its records are the same

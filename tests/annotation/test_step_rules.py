"""The time rules of a micro-step hold in the database itself, not only in the services."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction

from annotation.models import MicroStep, StepRevision
from annotation.services import StaleVersionError, step_create, step_retract, step_update

S = 1_000_000


def _raw_step(video, **times):
    fields = {"start_us": 1 * S, "cutoff_us": 2 * S, "outcome_us": 3 * S, "end_us": 4 * S}
    fields.update(times)
    return MicroStep(video=video, **fields)


BAD_TIMES = {
    "step_start_not_negative": {"start_us": -1},
    "step_start_before_cutoff": {"cutoff_us": 1 * S},
    "step_cutoff_not_after_outcome": {"outcome_us": int(1.5 * S)},
    "step_outcome_not_after_end": {"end_us": int(2.5 * S), "outcome_us": 3 * S},
    "step_at_most_10s": {"end_us": 11 * S + 1},
}


@pytest.mark.postgres
@pytest.mark.parametrize("constraint", sorted(BAD_TIMES))
def test_database_rejects_bad_times_without_the_services(make_video, constraint):
    video = make_video()
    with pytest.raises(IntegrityError) as excinfo, transaction.atomic():
        _raw_step(video, **BAD_TIMES[constraint]).save()
    assert constraint in str(excinfo.value)


@pytest.mark.parametrize("constraint", sorted(BAD_TIMES))
def test_bad_times_are_rejected_on_every_database(make_video, constraint):
    video = make_video()
    with pytest.raises(IntegrityError), transaction.atomic():
        _raw_step(video, **BAD_TIMES[constraint]).save()
    assert MicroStep.objects.count() == 0


@pytest.mark.postgres
def test_database_rejects_overlapping_active_steps(make_video):
    video = make_video()
    _raw_step(video).save()
    with pytest.raises(IntegrityError) as excinfo, transaction.atomic():
        _raw_step(
            video, start_us=int(3.5 * S), cutoff_us=5 * S, outcome_us=5 * S, end_us=6 * S
        ).save()
    assert "step_no_overlap_in_video" in str(excinfo.value)


@pytest.mark.postgres
def test_database_allows_adjacent_steps_and_overlap_with_a_retracted_one(make_video):
    video = make_video()
    _raw_step(video).save()
    _raw_step(video, start_us=4 * S, cutoff_us=5 * S, outcome_us=5 * S, end_us=6 * S).save()
    _raw_step(video, status="retracted").save()
    assert MicroStep.objects.filter(video=video).count() == 3


@pytest.mark.postgres
def test_database_refuses_to_delete_steps_and_revisions(make_video, annotator):
    video = make_video()
    step = step_create(
        video=video, author=annotator, start_us=0, cutoff_us=S, outcome_us=S, end_us=2 * S
    )
    for table in ("annotation_microstep", "annotation_steprevision"):
        with (
            pytest.raises(IntegrityError) as excinfo,
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(f"DELETE FROM {table}")  # noqa: S608 - fixed table names
        assert "never deleted" in str(excinfo.value)
    assert MicroStep.objects.filter(pk=step.pk).exists()


def test_code_refuses_to_delete_steps(make_video, annotator):
    step = step_create(
        video=make_video(), author=annotator, start_us=0, cutoff_us=S, outcome_us=S, end_us=2 * S
    )
    with pytest.raises(PermissionError):
        step.delete()
    with pytest.raises(PermissionError):
        MicroStep.objects.all().delete()
    with pytest.raises(PermissionError):
        StepRevision.objects.all().delete()


def test_service_rejects_overlap_and_writes_nothing(make_video, annotator):
    video = make_video()
    step_create(video=video, author=annotator, start_us=0, cutoff_us=S, outcome_us=S, end_us=2 * S)
    with pytest.raises(ValidationError) as excinfo:
        step_create(
            video=video,
            author=annotator,
            start_us=S,
            cutoff_us=2 * S,
            outcome_us=2 * S,
            end_us=3 * S,
        )
    assert "Overlaps step 1" in str(excinfo.value)
    assert MicroStep.objects.count() == 1
    assert StepRevision.objects.count() == 1


def test_service_names_every_broken_rule(make_video, annotator):
    with pytest.raises(ValidationError) as excinfo:
        step_create(
            video=make_video(seconds=20),
            author=annotator,
            start_us=5 * S,
            cutoff_us=4 * S,
            outcome_us=3 * S,
            end_us=21 * S,
        )
    errors = excinfo.value.message_dict
    assert set(errors) == {"cutoff_us", "outcome_us", "end_us"}
    assert MicroStep.objects.count() == 0


def test_editing_a_label_adds_a_revision_and_deletes_nothing(make_video, annotator):
    step = step_create(
        video=make_video(),
        author=annotator,
        start_us=0,
        cutoff_us=S,
        outcome_us=S,
        end_us=2 * S,
        local_intent="open the jar",
    )
    edited = step_update(
        step=step,
        author=annotator,
        version=1,
        reason="clearer",
        values={"local_intent": "loosen the jar lid", "plausible_next_steps": ["pour", "taste"]},
    )
    assert edited.version == 2
    revisions = list(step.revisions.order_by("version"))
    assert [r.action for r in revisions] == ["create", "update"]
    assert revisions[1].previous["local_intent"] == "open the jar"
    assert revisions[1].values["local_intent"] == "loosen the jar lid"
    assert revisions[1].values["plausible_next_steps"] == ["pour", "taste"]
    assert revisions[1].reason == "clearer" and revisions[1].author == annotator
    assert MicroStep.objects.count() == 1


def test_stale_version_is_refused_and_the_stored_step_returned(make_video, annotator):
    step = step_create(
        video=make_video(), author=annotator, start_us=0, cutoff_us=S, outcome_us=S, end_us=2 * S
    )
    step_update(step=step, author=annotator, version=1, values={"next_step": "stir"})
    with pytest.raises(StaleVersionError) as excinfo:
        step_update(step=step, author=annotator, version=1, values={"next_step": "pour"})
    assert excinfo.value.current.next_step == "stir"
    assert step.revisions.count() == 2


def test_retracted_step_keeps_its_rows_and_frees_its_time(make_video, annotator):
    video = make_video()
    step = step_create(
        video=video, author=annotator, start_us=0, cutoff_us=S, outcome_us=S, end_us=2 * S
    )
    retracted = step_retract(step=step, author=annotator, version=1, reason="duplicate")
    assert retracted.status == "retracted" and retracted.version == 2
    assert MicroStep.objects.filter(pk=step.pk).exists()
    again = step_create(
        video=video, author=annotator, start_us=0, cutoff_us=S, outcome_us=S, end_us=2 * S
    )
    assert again.position == 0
    assert [r.action for r in step.revisions.order_by("version")] == ["create", "retract"]


def test_positions_follow_start_time(make_video, annotator):
    video = make_video()
    later = step_create(
        video=video,
        author=annotator,
        start_us=5 * S,
        cutoff_us=6 * S,
        outcome_us=6 * S,
        end_us=7 * S,
    )
    earlier = step_create(
        video=video, author=annotator, start_us=0, cutoff_us=S, outcome_us=S, end_us=2 * S
    )
    later.refresh_from_db()
    assert (earlier.position, later.position) == (0, 1)

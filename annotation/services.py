"""Writes to micro-steps. Every change goes through here: it validates, bumps the version,
writes a full revision and never deletes a row."""

from __future__ import annotations

import operator
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import reduce

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q

from annotation.models import (
    FIELD_NAMES,
    LABEL_FIELDS,
    TAG_FIELDS,
    TIME_FIELDS,
    MicroStep,
    StepRevision,
)
from annotation.tags import clean_tags
from media.models import SourceVideo
from media.timebase import MAX_STEP_US
from studio.services import now

EDITABLE_FIELDS = TIME_FIELDS + LABEL_FIELDS + TAG_FIELDS
REQUIRED_LABELS = ("local_intent", "procedural_intent", "next_step")


def label_missing(prefix: str = "") -> Q:
    """Matches steps with at least one required label still empty (``prefix`` for joins,
    e.g. ``"steps__"`` from a video)."""
    return reduce(operator.or_, (Q(**{f"{prefix}{name}": ""}) for name in REQUIRED_LABELS))


class StaleVersionError(Exception):
    """A save carried a version older than the stored one; ``current`` is the stored step."""

    def __init__(self, current: MicroStep):
        super().__init__(f"step {current.pk} is at version {current.version}")
        self.current = current


@dataclass(frozen=True)
class Problem:
    """A validation problem that does not block saving (shown in the workspace)."""

    field: str
    message: str


def _clean_labels(values: Mapping) -> dict:
    cleaned = {}
    for name in ("local_intent", "procedural_intent", "next_step"):
        if name in values:
            value = values[name]
            if not isinstance(value, str):
                raise ValidationError({name: "Must be text."})
            cleaned[name] = value.strip()
    if "plausible_next_steps" in values:
        items = values["plausible_next_steps"]
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise ValidationError({"plausible_next_steps": "Must be a list of texts."})
        cleaned["plausible_next_steps"] = [i.strip() for i in items if i.strip()]
    if "tags" in values:
        cleaned["tags"] = clean_tags(values["tags"])
    return cleaned


def validate_times(
    *,
    video: SourceVideo,
    start_us: int,
    cutoff_us: int,
    outcome_us: int,
    end_us: int,
    exclude_step_id: int | None = None,
) -> None:
    """Raise ValidationError naming every broken time rule (the database holds the same rules)."""
    errors: dict[str, list[str]] = {}

    def add(field: str, message: str) -> None:
        errors.setdefault(field, []).append(message)

    times = {
        "start_us": start_us,
        "cutoff_us": cutoff_us,
        "outcome_us": outcome_us,
        "end_us": end_us,
    }
    for name, value in times.items():
        if not isinstance(value, int) or isinstance(value, bool):
            add(name, "Must be an integer number of microseconds.")
    if errors:
        raise ValidationError(errors)
    if start_us < 0:
        add("start_us", "Cannot be before the start of the video.")
    if end_us > video.duration_us:
        add("end_us", f"Cannot be after the end of the video ({video.duration_us} µs).")
    if not start_us < cutoff_us:
        add("cutoff_us", "The cutoff must come after the start.")
    if not cutoff_us <= outcome_us:
        add("outcome_us", "The outcome cannot come before the cutoff.")
    if not outcome_us <= end_us:
        add("end_us", "The end cannot come before the outcome.")
    if end_us - start_us > MAX_STEP_US:
        add("end_us", "A micro-step lasts at most 10 seconds.")
    overlapping = MicroStep.objects.filter(
        video=video, status=MicroStep.Status.ACTIVE, start_us__lt=end_us, end_us__gt=start_us
    )
    if exclude_step_id is not None:
        overlapping = overlapping.exclude(pk=exclude_step_id)
    clash = overlapping.order_by("start_us").first()
    if clash is not None:
        add(
            "start_us",
            f"Overlaps step {clash.position + 1} [{clash.start_us}, {clash.end_us}) of this video.",
        )
    if errors:
        raise ValidationError(errors)


def step_problems(step: MicroStep) -> list[Problem]:
    """What still keeps a saved step from being complete (labels left to write)."""
    problems = [
        Problem(name, "Required.") for name in REQUIRED_LABELS if not getattr(step, name).strip()
    ]
    return problems


def _renumber(video_id: int) -> None:
    """Positions follow start time among active steps; retracted steps keep their last one."""
    active = MicroStep.objects.filter(video_id=video_id, status=MicroStep.Status.ACTIVE)
    changed = []
    for position, step in enumerate(active.order_by("start_us", "id").only("id", "position")):
        if step.position != position:
            step.position = position
            changed.append(step)
    if changed:
        MicroStep.objects.bulk_update(changed, ["position"])


def _lock_video(video_id: int) -> None:
    # Serialises writers of one video so the overlap check and the insert cannot interleave.
    list(SourceVideo.objects.select_for_update().filter(pk=video_id).values_list("id"))


def _record(step: MicroStep, *, action: str, author, reason: str, previous: dict | None) -> None:
    StepRevision.objects.create(
        step=step,
        version=step.version,
        action=action,
        author=author,
        created_at=now(),
        reason=reason,
        previous=previous,
        values=step.snapshot(),
    )


@transaction.atomic
def step_create(
    *,
    video: SourceVideo,
    author,
    start_us: int,
    cutoff_us: int,
    outcome_us: int,
    end_us: int,
    reason: str = "",
    action: str = StepRevision.Action.CREATE,
    uid: uuid.UUID | None = None,
    **labels,
) -> MicroStep:
    unknown = set(labels) - set(LABEL_FIELDS + TAG_FIELDS)
    if unknown:
        raise ValidationError(dict.fromkeys(sorted(unknown), "Unknown field."))
    _lock_video(video.pk)
    validate_times(
        video=video, start_us=start_us, cutoff_us=cutoff_us, outcome_us=outcome_us, end_us=end_us
    )
    step = MicroStep(
        video=video,
        start_us=start_us,
        cutoff_us=cutoff_us,
        outcome_us=outcome_us,
        end_us=end_us,
        created_by=author,
        **_clean_labels(labels),
    )
    if uid is not None:
        step.uid = uid
    step.full_clean(exclude=["video", "created_by"], validate_constraints=False)
    step.save()
    _renumber(video.pk)
    step.refresh_from_db()
    _record(step, action=action, author=author, reason=reason, previous=None)
    return step


@transaction.atomic
def step_update(
    *,
    step: MicroStep,
    author,
    version: int,
    values: Mapping,
    reason: str = "",
    action: str = StepRevision.Action.UPDATE,
) -> MicroStep:
    """Apply ``values`` (any subset of the editable fields) to ``step`` if ``version`` is current.

    Raises StaleVersionError when someone saved in between, ValidationError on bad values; in both
    cases nothing is written. Saving identical values writes no revision.
    """
    unknown = set(values) - set(EDITABLE_FIELDS)
    if unknown:
        raise ValidationError(dict.fromkeys(sorted(unknown), "Not an editable field."))
    moves = any(name in values for name in TIME_FIELDS)
    if moves:
        # Only a change of times can make steps overlap, so only then do writers of the whole
        # video queue behind one another; a label save locks just its own row (autosaves of
        # different steps of one video run side by side). The video is locked before the step,
        # the same order as every other writer, so the two locks cannot deadlock.
        _lock_video(step.video_id)
    current = MicroStep.objects.select_for_update().get(pk=step.pk)
    if current.version != version:
        raise StaleVersionError(current)
    if current.status != MicroStep.Status.ACTIVE:
        raise ValidationError({"status": "A retracted step cannot be edited; restore it first."})
    previous = current.snapshot()
    new = {
        **previous,
        **{k: values[k] for k in TIME_FIELDS if k in values},
        **_clean_labels(values),
    }
    if moves:
        validate_times(
            video=current.video,
            start_us=new["start_us"],
            cutoff_us=new["cutoff_us"],
            outcome_us=new["outcome_us"],
            end_us=new["end_us"],
            exclude_step_id=current.pk,
        )
    changed = [k for k in EDITABLE_FIELDS if new[k] != previous[k]]
    if not changed:
        return current
    for name in changed:
        setattr(current, name, new[name])
    current.version += 1
    current.save(update_fields=[*changed, "version", "updated_at"])
    if any(name in TIME_FIELDS for name in changed):
        _renumber(current.video_id)
        current.refresh_from_db()
    _record(current, action=action, author=author, reason=reason, previous=previous)
    return current


@transaction.atomic
def step_set_status(
    *,
    step: MicroStep,
    author,
    version: int,
    status: str,
    reason: str = "",
) -> MicroStep:
    """Retract (or restore) a step. Its rows stay; a retracted step leaves the timeline."""
    _lock_video(step.video_id)
    current = MicroStep.objects.select_for_update().get(pk=step.pk)
    if current.version != version:
        raise StaleVersionError(current)
    if status == current.status:
        return current
    if status == MicroStep.Status.ACTIVE:
        validate_times(
            video=current.video,
            start_us=current.start_us,
            cutoff_us=current.cutoff_us,
            outcome_us=current.outcome_us,
            end_us=current.end_us,
            exclude_step_id=current.pk,
        )
        action = StepRevision.Action.RESTORE
    elif status == MicroStep.Status.RETRACTED:
        action = StepRevision.Action.RETRACT
    else:
        raise ValidationError({"status": f"Unknown status {status!r}."})
    previous = current.snapshot()
    current.status = status
    current.version += 1
    current.save(update_fields=["status", "version", "updated_at"])
    _renumber(current.video_id)
    current.refresh_from_db()
    _record(current, action=action, author=author, reason=reason, previous=previous)
    return current


def step_retract(*, step: MicroStep, author, version: int, reason: str = "") -> MicroStep:
    return step_set_status(
        step=step, author=author, version=version, status=MicroStep.Status.RETRACTED, reason=reason
    )


def steps_of(video: SourceVideo, *, include_retracted: bool = False) -> Iterable[MicroStep]:
    steps = MicroStep.objects.filter(video=video)
    if not include_retracted:
        steps = steps.filter(status=MicroStep.Status.ACTIVE)
    return steps.order_by("start_us", "id")


# --- The workspace's actions ------------------------------------------------------------------


def _apply(previous: Mapping, values: Mapping) -> dict:
    """What ``step_update`` would store for ``values`` over ``previous`` (labels cleaned)."""
    return {
        **previous,
        **{k: values[k] for k in TIME_FIELDS if k in values},
        **_clean_labels(values),
    }


def _is_replay(*, step_id: int, author, version: int, values: Mapping) -> bool:
    """Did this very save already land? True when the revision right after ``version`` was written
    by the same author and holds exactly what applying ``values`` to its predecessor gives.

    A client whose response was lost (dropped connection, reload) retries the same body with the
    same version; comparing values instead of storing a key keeps the revision table unchanged and
    still acknowledges the retry without writing a second revision.
    """
    if author is None or not getattr(author, "pk", None):
        return False
    revision = (
        StepRevision.objects.filter(step_id=step_id, version=version + 1)
        .only("author_id", "action", "previous", "values")
        .first()
    )
    if (
        revision is None
        or revision.author_id != author.pk
        or revision.action != StepRevision.Action.UPDATE
        or revision.previous is None
    ):
        return False
    try:
        expected = _apply(revision.previous, values)
    except ValidationError:
        return False
    # revisions written before tags existed hold no "tags": the step had none
    return all(
        expected.get(k, [] if k in TAG_FIELDS else None)
        == revision.values.get(k, [] if k in TAG_FIELDS else None)
        for k in EDITABLE_FIELDS
    )


def step_save(
    *, step: MicroStep, author, version: int, values: Mapping, reason: str = ""
) -> tuple[MicroStep, bool]:
    """An autosave: ``step_update`` that acknowledges a retried save instead of calling it stale.

    Returns ``(step, replayed)``; ``replayed`` is True when this exact save had already been
    applied (the step returned is the stored one). A genuinely stale save still raises
    StaleVersionError, and bad values raise ValidationError; neither writes anything.
    """
    try:
        return step_update(
            step=step, author=author, version=version, values=values, reason=reason
        ), False
    except StaleVersionError:
        if _is_replay(step_id=step.pk, author=author, version=version, values=values):
            return MicroStep.objects.select_related("video").get(pk=step.pk), True
        raise


@transaction.atomic
def step_create_once(
    *,
    uid: uuid.UUID,
    video: SourceVideo,
    author,
    start_us: int,
    cutoff_us: int,
    outcome_us: int,
    end_us: int,
    reason: str = "",
    **labels,
) -> tuple[MicroStep, bool]:
    """Create a step under a client-chosen ``uid``; a retry with the same uid returns the stored
    step instead of a second one. Returns ``(step, created)``."""
    _lock_video(video.pk)
    existing = MicroStep.objects.filter(uid=uid).first()
    if existing is not None:
        if existing.video_id != video.pk or existing.created_by_id != getattr(author, "pk", None):
            raise ValidationError({"uid": "This identifier belongs to another step."})
        return existing, False
    step = step_create(
        video=video,
        author=author,
        start_us=start_us,
        cutoff_us=cutoff_us,
        outcome_us=outcome_us,
        end_us=end_us,
        reason=reason,
        uid=uid,
        **labels,
    )
    return step, True


def step_restore(*, step: MicroStep, author, version: int, reason: str = "") -> MicroStep:
    return step_set_status(
        step=step, author=author, version=version, status=MicroStep.Status.ACTIVE, reason=reason
    )


def split_marks(
    *, start_us: int, cutoff_us: int, outcome_us: int, end_us: int, at_us: int
) -> tuple[dict, dict]:
    """The times of the two parts when a step is split at ``at_us`` (start < at < end).

    The first part keeps the marks that fall inside it and ends at ``at``; a mark past ``at``
    moves to the second part. A part with no mark of its own gets cutoff = outcome = its end,
    which is valid and shows up for the annotator to place.
    """
    first = {
        "start_us": start_us,
        "cutoff_us": min(cutoff_us, at_us),
        "outcome_us": min(outcome_us, at_us),
        "end_us": at_us,
    }
    if cutoff_us > at_us:
        second_cutoff = cutoff_us
    elif outcome_us > at_us:
        second_cutoff = outcome_us
    else:
        second_cutoff = end_us
    second = {
        "start_us": at_us,
        "cutoff_us": second_cutoff,
        "outcome_us": outcome_us if outcome_us > at_us else end_us,
        "end_us": end_us,
    }
    return first, second


@transaction.atomic
def step_split(
    *, step: MicroStep, author, version: int, at_us: int, reason: str = ""
) -> tuple[MicroStep, MicroStep]:
    """Split an active step at ``at_us`` into ``[start, at)`` and ``[at, end)``.

    The first part keeps the step's identity and labels; the second is a new step with empty
    labels (nothing is lost: the first part's revisions hold what the whole step said).
    """
    _lock_video(step.video_id)
    current = MicroStep.objects.select_for_update().get(pk=step.pk)
    if current.version != version:
        raise StaleVersionError(current)
    if current.status != MicroStep.Status.ACTIVE:
        raise ValidationError({"status": "A retracted step cannot be split."})
    if not isinstance(at_us, int) or isinstance(at_us, bool):
        raise ValidationError({"at_us": "Must be an integer number of microseconds."})
    if not current.start_us < at_us < current.end_us:
        raise ValidationError({"at_us": "Split inside the step: after its start, before its end."})
    first_marks, second_marks = split_marks(
        start_us=current.start_us,
        cutoff_us=current.cutoff_us,
        outcome_us=current.outcome_us,
        end_us=current.end_us,
        at_us=at_us,
    )
    first = step_update(
        step=current,
        author=author,
        version=version,
        values=first_marks,
        reason=reason or "Split.",
        action=StepRevision.Action.SPLIT,
    )
    second = step_create(
        video=current.video,
        author=author,
        reason=reason or f"Split from step {current.uid}.",
        action=StepRevision.Action.SPLIT,
        **second_marks,
    )
    return first, second


def next_active_step(step: MicroStep) -> MicroStep | None:
    return (
        MicroStep.objects.filter(
            video_id=step.video_id, status=MicroStep.Status.ACTIVE, start_us__gte=step.end_us
        )
        .order_by("start_us", "id")
        .first()
    )


@transaction.atomic
def step_merge(
    *, step: MicroStep, author, version: int, next_version: int, reason: str = ""
) -> tuple[MicroStep, MicroStep]:
    """Merge a step with the next active step of its video; returns (merged, retracted).

    The first step grows to the second's end and keeps its own cutoff, outcome and labels; a label
    it left empty is taken from the second, and plausible next steps are united. The second step
    is retracted (its rows and revisions stay), so no text anyone typed is lost.
    """
    _lock_video(step.video_id)
    current = MicroStep.objects.select_for_update().get(pk=step.pk)
    if current.version != version:
        raise StaleVersionError(current)
    if current.status != MicroStep.Status.ACTIVE:
        raise ValidationError({"status": "A retracted step cannot be merged."})
    following = next_active_step(current)
    if following is None:
        raise ValidationError({"merge": "This is the video's last step: nothing follows to merge."})
    if following.version != next_version:
        raise StaleVersionError(following)
    if following.end_us - current.start_us > MAX_STEP_US:
        raise ValidationError(
            {"end_us": "The merged step would last more than 10 seconds; shorten a step first."}
        )
    retracted = step_set_status(
        step=following,
        author=author,
        version=next_version,
        status=MicroStep.Status.RETRACTED,
        reason=reason or f"Merged into step {current.uid}.",
    )
    values: dict = {"end_us": following.end_us}
    for name in ("local_intent", "procedural_intent", "next_step"):
        if not getattr(current, name).strip() and getattr(following, name).strip():
            values[name] = getattr(following, name)
    plausible = list(current.plausible_next_steps)
    for item in following.plausible_next_steps:
        if item not in plausible:
            plausible.append(item)
    values["plausible_next_steps"] = plausible
    merged = step_update(
        step=current,
        author=author,
        version=version,
        values=values,
        reason=reason or f"Merged with step {following.uid}.",
        action=StepRevision.Action.MERGE,
    )
    return merged, retracted


def revision_diff(revision: StepRevision) -> list[dict]:
    """The fields a revision changed, each with its human name and its value before and after."""
    before = {"tags": [], **(revision.previous or {})} if revision.previous else {}
    after = {"tags": [], **(revision.values or {})}  # older revisions hold no tags: none
    return [
        {
            "field": name,
            "name": FIELD_NAMES[name],
            "before": before.get(name),
            "after": after.get(name),
        }
        for name in (*EDITABLE_FIELDS, "status")
        if before.get(name) != after.get(name)
    ]

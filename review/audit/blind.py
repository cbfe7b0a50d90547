"""What a reviewer is shown, and nothing else: the dedicated serializer of the blind item page.

Built field by field from an explicit list, never from a model's fields, so it cannot emit a
scene or event name, a video file name or SHA-256, a step, sample or item id, an annotator's
name, a model output, a judge score or another reviewer's decision. Media arrive only as opaque
per-user grants. Phase-2 content (the context clip, Next step, plausible next steps) is added
only once the reviewer's phase 1 is submitted — the server decides, not the page. Every answer
that shows content appends an exposure record (part, grants, fields).
"""

from __future__ import annotations

from django.db import transaction

from media.grants import grant_create
from media.models import RenderedMedia, SourceVideo
from media.renders import media_for_window, media_request
from media.timebase import US_PER_SECOND
from media.windows import StepTimes, context_window
from review.audit.criteria import CRITERIA
from review.audit.kind import campaign_error_types
from review.campaigns.models import Assignment, Exposure
from review.campaigns.services import current_submission, parts_done, record_exposure
from studio.services import now

PHASE1_FIELDS = ("local_intent", "procedural_intent", "official_clip")
PHASE2_FIELDS = ("next_step", "plausible_next_steps", "context_clip", "marks")


def _times(row) -> StepTimes:
    return StepTimes(
        start_us=row.start_us, cutoff_us=row.cutoff_us, outcome_us=row.outcome_us, end_us=row.end_us
    )


def _neighbours(release_step):
    from annotation.models import ReleaseStep

    same = ReleaseStep.objects.filter(
        release_id=release_step.release_id, video_sha256=release_step.video_sha256
    )
    previous = same.filter(start_us__lt=release_step.start_us).order_by("-start_us").first()
    following = same.filter(start_us__gt=release_step.start_us).order_by("start_us").first()
    return previous, following


def clip_grant(media: RenderedMedia | None, user, grants: list) -> dict:
    if media is None:
        return {"status": "unavailable", "url": None}
    if media.status != RenderedMedia.Status.READY:
        # Never the error text: it may name files.
        return {
            "status": "failed" if media.status == RenderedMedia.Status.FAILED else "preparing",
            "url": None,
        }
    grants.append(f"media:{media.pk}")
    return {"status": "ready", "url": grant_create(user=user, media=media)}


def item_media(release_step, *, phase: int):
    """The medium of a phase for a release step (queued for rendering when new) and, for phase
    2, the context window; (None, None) when the source video is not on this instance."""
    video = SourceVideo.objects.filter(sha256=release_step.video_sha256).first()
    if video is None:
        return None, None
    step = _times(release_step)
    if phase == 1:
        return media_request(video=video, condition="official", step=step, profile="clip"), None
    previous, following = _neighbours(release_step)
    window = context_window(
        step=step,
        duration_us=video.duration_us,
        previous=_times(previous) if previous else None,
        following=_times(following) if following else None,
    )
    return media_for_window(video=video, window=window, profile="clip"), window


def _seconds(us: int) -> float:
    return round(us / US_PER_SECOND, 6)


def _own_answers(assignment, part):
    submission = current_submission(assignment=assignment, part=part)
    return submission.payload if submission is not None else None


@transaction.atomic
def blind_state(*, assignment: Assignment, user) -> dict:
    campaign = assignment.campaign
    release_step = assignment.item.sample.release_step
    done = parts_done(assignment)
    phase = "phase1" if "phase1" not in done else ("phase2" if "phase2" not in done else "done")
    at = now()
    held = assignment.state == Assignment.State.LEASED and bool(
        assignment.lease_expires_at and assignment.lease_expires_at >= at
    )
    state = {
        "phase": phase,
        "submitted": done,
        "campaign_open": campaign.is_open,
        "lease_held": held,
        "instructions": campaign.instructions,
        "criteria": [
            {"id": c.id, "name": c.name, "requirement": c.requirement, "phase": c.phase}
            for c in CRITERIA
        ],
        # Each with the criteria it belongs to (none: any); the page offers a criterion's own.
        "error_types": [
            {"code": e.code, "name": e.name, "criteria": list(e.criteria)}
            for e in campaign_error_types(campaign)
        ],
        "draft": {k: v for k, v in (assignment.draft or {}).items() if k in ("phase1", "phase2")},
        "answers": {"phase1": _own_answers(assignment, "phase1")},
    }
    grants: list[str] = []
    official, _ = item_media(release_step, phase=1)
    state["observation"] = {
        "local_intent": release_step.local_intent,
        "procedural_intent": release_step.procedural_intent,
        "clip": clip_grant(official, user, grants),
        "duration_s": _seconds(release_step.cutoff_us - release_step.start_us),
    }
    fields = list(PHASE1_FIELDS)
    if "phase1" in done:
        context, window = item_media(release_step, phase=2)
        origin = window.start_us if window is not None else release_step.start_us
        state["context"] = {
            "next_step": release_step.next_step,
            "plausible_next_steps": list(release_step.plausible_next_steps),
            "clip": clip_grant(context, user, grants),
            # Where the step's marks fall on the context clip, in seconds from its start.
            "marks": {
                name: _seconds(getattr(release_step, f"{name}_us") - origin)
                for name in ("start", "cutoff", "outcome", "end")
            },
            "duration_s": _seconds(window.stop_us - window.start_us) if window else None,
        }
        state["answers"]["phase2"] = _own_answers(assignment, "phase2")
        fields += PHASE2_FIELDS
    part = "phase2" if "phase1" in done else "phase1"
    seen = Exposure.objects.filter(assignment=assignment, part=part, fields=fields).exists()
    if grants or not seen:
        record_exposure(assignment=assignment, part=part, grants=grants, fields=fields)
    return state

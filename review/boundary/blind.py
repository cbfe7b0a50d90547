"""What a boundary reviewer is shown, and nothing else: the dedicated serializer of the blind
item page.

Built field by field from an explicit list: the campaign's instructions, the step's Local intent
and Next step (what the windows are ruled against), and each window's name, definition, length
and clip, in the reviewer's own seeded order (``review.boundary.windows.window_order``). No
scene or event name, video file name or SHA-256, step, sample or item id, annotator, model
output, judge score or other reviewer's decision. Media arrive only as opaque per-user grants.
Every answer appends an exposure record (grants and fields).
"""

from __future__ import annotations

from django.db import transaction

from media.timebase import US_PER_SECOND
from review.audit.blind import clip_grant
from review.boundary.kind import PART
from review.boundary.media import step_windows, window_media
from review.boundary.windows import BY_NAME, window_order
from review.campaigns.models import Assignment, Exposure
from review.campaigns.services import current_submission, parts_done, record_exposure
from studio.services import now

FIELDS = ("local_intent", "next_step", "windows")


def _seconds(us: int) -> float:
    return round(us / US_PER_SECOND, 6)


def item_windows(assignment, user, grants: list) -> list[dict]:
    """The item's windows in the person's order, with their clips (grants appended)."""
    release_step = assignment.item.sample.release_step
    windows = step_windows(release_step)
    media = window_media(release_step)
    order = window_order(
        assignment.person_id, assignment.item.sample.sample_id, assignment.campaign.seed
    )
    out = []
    for position, name in enumerate(order, start=1):
        rule = BY_NAME[name]
        window = windows[name]
        entry = {
            "name": name,
            "label": rule.label,
            "requirement": rule.requirement,
            "position": position,
            "available": not isinstance(window, str),
        }
        if isinstance(window, str):
            entry |= {"reason": window, "clip": {"status": "unavailable", "url": None}}
        else:
            entry |= {
                "duration_s": _seconds(window.stop_us - window.start_us),
                # Where the window lies relative to the step's start (the page draws every
                # window on one timeline): seconds, never a time of the source.
                "from_s": _seconds(window.start_us - release_step.start_us),
                "to_s": _seconds(window.stop_us - release_step.start_us),
                "clip": clip_grant(media[name], user, grants),
            }
        out.append(entry)
    return out


@transaction.atomic
def blind_state(*, assignment: Assignment, user) -> dict:
    campaign = assignment.campaign
    release_step = assignment.item.sample.release_step
    done = PART in parts_done(assignment)
    at = now()
    held = assignment.state == Assignment.State.LEASED and bool(
        assignment.lease_expires_at and assignment.lease_expires_at >= at
    )
    submission = current_submission(assignment=assignment, part=PART)
    grants: list[str] = []
    state = {
        "phase": "done" if done else "open",
        "campaign_open": campaign.is_open,
        "lease_held": held,
        "instructions": campaign.instructions,
        "step": {
            "local_intent": release_step.local_intent,
            "next_step": release_step.next_step,
        },
        "windows": item_windows(assignment, user, grants),
        "draft": (assignment.draft or {}).get(PART) or {},
        "answers": submission.payload if submission is not None else None,
    }
    fields = list(FIELDS)
    seen = Exposure.objects.filter(assignment=assignment, part=PART, fields=fields).exists()
    if grants or not seen:
        record_exposure(assignment=assignment, part=PART, grants=grants, fields=fields)
    return state

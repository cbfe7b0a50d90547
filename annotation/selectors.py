"""Reads scoped to a user: the one access path to videos and steps for the annotation pages and
API. Anything outside a user's read scope is reported as missing (404), never as forbidden, so
ids cannot be probed. A write to something the user may read but not change (an adjudicator's
view of any video) is refused as forbidden (403): the user knows the object exists already."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404

from annotation.models import MicroStep, StepRevision, VideoAssignment
from annotation.visibility import withheld_video_ids
from media.models import SourceVideo
from studio.roles import ADJUDICATOR, ANNOTATOR, is_admin, roles_of

READ_ONLY = "Your role reads this video's annotation; it cannot change it."


def videos_for(user) -> QuerySet[SourceVideo]:
    """Videos whose annotation the user may see: admins and adjudicators all, annotators theirs;
    never a video a higher layer withholds from the user for now (``annotation.visibility``)."""
    videos = SourceVideo.objects.select_related("scene")
    withheld = withheld_video_ids(user)
    if withheld:
        videos = videos.exclude(pk__in=withheld)
    roles = roles_of(user)
    if is_admin(user) or ADJUDICATOR in roles:
        return videos.all()
    if ANNOTATOR in roles:
        assigned = VideoAssignment.objects.filter(annotator=user).values("video_id")
        return videos.filter(id__in=assigned)
    return videos.none()


def editable_videos_for(user) -> QuerySet[SourceVideo]:
    """Videos whose steps the user may change: admins all, annotators those assigned to them
    (never a withheld one)."""
    videos = SourceVideo.objects.select_related("scene")
    withheld = withheld_video_ids(user)
    if withheld:
        videos = videos.exclude(pk__in=withheld)
    if is_admin(user):
        return videos.all()
    if ANNOTATOR in roles_of(user):
        assigned = VideoAssignment.objects.filter(annotator=user).values("video_id")
        return videos.filter(id__in=assigned)
    return SourceVideo.objects.none()


def may_edit(user, video_id: int) -> bool:
    """Whether the user may change the steps of a video already in their read scope."""
    if is_admin(user):
        return True
    roles = roles_of(user)
    if ANNOTATOR not in roles:
        return False
    if ADJUDICATOR not in roles:
        return True  # an annotator's read scope is their assignments (videos_for)
    return VideoAssignment.objects.filter(video_id=video_id, annotator=user).exists()


def steps_for(user) -> QuerySet[MicroStep]:
    return MicroStep.objects.filter(video__in=videos_for(user).values("id"))


def video_for_or_404(user, video_id, *, edit: bool = False) -> SourceVideo:
    """The video if the user may read it (else 404); with ``edit``, 403 unless they may change
    its steps."""
    try:
        video = videos_for(user).get(pk=video_id)
    except (SourceVideo.DoesNotExist, ValueError, TypeError):
        raise Http404("No such video.") from None
    if edit and not may_edit(user, video.pk):
        raise PermissionDenied(READ_ONLY)
    return video


def step_for_or_404(user, step_id, *, edit: bool = False) -> MicroStep:
    """The step if the user may read its video (else 404); with ``edit``, 403 unless they may
    change it."""
    try:
        step = MicroStep.objects.select_related("video").get(
            pk=step_id, video__in=videos_for(user).values("id")
        )
    except (MicroStep.DoesNotExist, ValueError, TypeError):
        raise Http404("No such step.") from None
    if edit and not may_edit(user, step.video_id):
        raise PermissionDenied(READ_ONLY)
    return step


def step_author_ids(*, step_ids) -> dict[int, set[int]]:
    """Who created or revised each step (user ids, from the revisions and the creator), for
    rules such as "nobody reviews a step they annotated or revised"."""
    authors: dict[int, set[int]] = {}
    revisions = StepRevision.objects.filter(step_id__in=step_ids, author__isnull=False)
    for step_id, author_id in revisions.values_list("step_id", "author_id").distinct():
        authors.setdefault(step_id, set()).add(author_id)
    creators = MicroStep.objects.filter(pk__in=step_ids, created_by__isnull=False)
    for step_id, author_id in creators.values_list("id", "created_by_id"):
        authors.setdefault(step_id, set()).add(author_id)
    return authors

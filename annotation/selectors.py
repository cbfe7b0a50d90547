"""Reads scoped to a user: the one access path to videos and steps for the annotation pages and
API. Anything outside a user's scope is reported as missing (404), never as forbidden, so ids
cannot be probed."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from annotation.models import MicroStep, VideoAssignment
from media.models import SourceVideo
from studio.roles import ADJUDICATOR, ANNOTATOR, is_admin, roles_of


def videos_for(user) -> QuerySet[SourceVideo]:
    """Videos whose annotation the user may see: admins and adjudicators all, annotators theirs."""
    videos = SourceVideo.objects.select_related("scene")
    roles = roles_of(user)
    if is_admin(user) or ADJUDICATOR in roles:
        return videos.all()
    if ANNOTATOR in roles:
        assigned = VideoAssignment.objects.filter(annotator=user).values("video_id")
        return videos.filter(id__in=assigned)
    return videos.none()


def editable_videos_for(user) -> QuerySet[SourceVideo]:
    """Videos whose steps the user may change: admins all, annotators those assigned to them."""
    if is_admin(user):
        return SourceVideo.objects.select_related("scene").all()
    if ANNOTATOR in roles_of(user):
        assigned = VideoAssignment.objects.filter(annotator=user).values("video_id")
        return SourceVideo.objects.select_related("scene").filter(id__in=assigned)
    return SourceVideo.objects.none()


def steps_for(user) -> QuerySet[MicroStep]:
    return MicroStep.objects.filter(video__in=videos_for(user).values("id"))


def video_for_or_404(user, video_id, *, edit: bool = False) -> SourceVideo:
    scope = editable_videos_for(user) if edit else videos_for(user)
    try:
        return scope.get(pk=video_id)
    except (SourceVideo.DoesNotExist, ValueError, TypeError):
        raise Http404("No such video.") from None


def step_for_or_404(user, step_id, *, edit: bool = False) -> MicroStep:
    scope = editable_videos_for(user) if edit else videos_for(user)
    try:
        return MicroStep.objects.select_related("video").get(
            pk=step_id, video__in=scope.values("id")
        )
    except (MicroStep.DoesNotExist, ValueError, TypeError):
        raise Http404("No such step.") from None

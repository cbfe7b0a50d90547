from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotation.models import MicroStep
from annotation.selectors import videos_for


@login_required
def video_list(request: HttpRequest) -> HttpResponse:
    """The videos this user annotates, with their step counts and labelled share."""
    active = Q(steps__status=MicroStep.Status.ACTIVE)
    labelled = (
        active
        & ~Q(steps__local_intent="")
        & ~Q(steps__procedural_intent="")
        & ~Q(steps__next_step="")
    )
    videos = videos_for(request.user).annotate(
        step_count=Count("steps", filter=active), labelled_count=Count("steps", filter=labelled)
    )
    return render(request, "annotation/video_list.html", {"videos": videos})

"""Server-rendered annotation pages. The workspace page is a shell: its script loads everything
through the documented API (annotation.api), so the page and any other client see the same data
through the same access checks."""

from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from annotation.history import frame_times, revision_changes
from annotation.models import FIELD_NAMES, MicroStep
from annotation.selectors import (
    editable_videos_for,
    may_edit,
    step_for_or_404,
    video_for_or_404,
    videos_for,
)
from annotation.services import REQUIRED_LABELS, label_missing
from annotation.tags import MAX_TAGS, TAG_RE
from annotation.visibility import labels_shown
from media.display import mark_text
from studio.roles import ADJUDICATOR, is_admin, roles_of

# Must match SPEEDS in static/js/player.js.
SPEEDS = (0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4)
MARKS = (
    ("start_us", "Start", "the step's first frame"),
    ("cutoff_us", "Cutoff", "the last frame shown to a model is the one before the cutoff"),
    ("outcome_us", "Outcome", "the first frame where the outcome is visible"),
    ("end_us", "End", "the step's last frame is the one before the end"),
)


@login_required
def video_list(request: HttpRequest) -> HttpResponse:
    """The videos I may read (an annotator: theirs; adjudicators and admins: all), with step
    counts, labelled share and open problems, and whether I may edit each."""
    active = Q(steps__status=MicroStep.Status.ACTIVE)
    missing = {
        f"missing_{name}": Count("steps", filter=active & Q(**{f"steps__{name}": ""}))
        for name in REQUIRED_LABELS
    }
    labelled = active & ~label_missing("steps__")
    editable = set(editable_videos_for(request.user).values_list("id", flat=True))
    videos = (
        videos_for(request.user)
        .defer("frame_times", "keyframe_times")
        .annotate(
            step_count=Count("steps", filter=active),
            labelled_count=Count("steps", filter=labelled),
            **missing,
        )
    )
    rows = []
    for video in videos:
        problems = sum(getattr(video, f"missing_{name}") for name in REQUIRED_LABELS)
        share = round(100 * video.labelled_count / video.step_count) if video.step_count else None
        rows.append(
            {
                "video": video,
                "labelled_share": share,
                "problems": problems,
                "editable": video.pk in editable,
            }
        )
    reads_all = ADJUDICATOR in roles_of(request.user) or is_admin(request.user)
    return render(
        request,
        "annotation/video_list.html",
        {"rows": rows, "title": "All videos" if reads_all else "My videos"},
    )


@login_required
def workspace(request: HttpRequest, video_id: int) -> HttpResponse:
    """The workspace; read-only (no edit controls, no writes) for a user who may only read."""
    video = video_for_or_404(request.user, video_id)
    read_only = not may_edit(request.user, video.pk)
    api = "annotation:api:"
    config = {
        "videoId": video.pk,
        "readOnly": read_only,
        "fieldNames": FIELD_NAMES,
        # The tag input checks tags with the server's own rule before saving (static/js/tags.js).
        "tagRules": {"pattern": TAG_RE.pattern, "maxTags": MAX_TAGS},
        "urls": {
            "ping": reverse(api + "ping"),
            "workspace": reverse(api + "workspace", args=[video.pk]),
            "frameTimes": reverse(api + "frame-times", args=[video.pk]),
            "source": reverse(api + "source", args=[video.pk]),
            "createStep": reverse(api + "step-create", args=[video.pk]),
            # The page fills in a step id for "0".
            "step": reverse(api + "step", args=[0]),
            "retract": reverse(api + "step-retract", args=[0]),
            "restore": reverse(api + "step-restore", args=[0]),
            "split": reverse(api + "step-split", args=[0]),
            "merge": reverse(api + "step-merge", args=[0]),
            "history": reverse(api + "step-history", args=[0]),
            "preview": reverse(api + "step-preview", args=[0]),
            "historyPage": reverse("annotation:step-history", args=[0]),
        },
    }
    context = {
        "video": video,
        "read_only": read_only,
        "config": config,
        "speeds": SPEEDS,
        "marks": MARKS,
        "labels": [
            ("local_intent", "Local intent (what)"),
            ("procedural_intent", "Procedural intent (why)"),
            ("next_step", "Next step (observed)"),
        ],
    }
    return render(request, "annotation/workspace.html", context)


@login_required
def step_history(request: HttpRequest, step_id: int) -> HttpResponse:
    """A step's revisions as a plain page (the workspace shows the same in a panel)."""
    step = step_for_or_404(request.user, step_id)
    labels_shown(request.user, [step])
    times = frame_times(step)
    revisions = [
        {"revision": r, "changes": revision_changes(r, times)}
        for r in step.revisions.select_related("author").order_by("-version")
    ]
    return render(
        request,
        "annotation/step_history.html",
        {"step": step, "times": times, "revisions": revisions, "now": _now_text(step, times)},
    )


def _now_text(step, times) -> dict:
    return {
        field: mark_text(times, getattr(step, field), mark=field)
        for field in ("start_us", "cutoff_us", "end_us")
    }

"""Home-page cards of the annotation side: the annotator's assigned videos and open problems,
the adjudicator's read access, the admin's videos, assignments and releases."""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import Exists, OuterRef
from django.urls import reverse
from django.utils.translation import ngettext

from annotation.models import MicroStep, Release, VideoAssignment
from annotation.services import label_missing
from media.models import SourceVideo
from studio.home import HomeCard, home_card
from studio.roles import ADJUDICATOR, ADMIN, ANNOTATOR, roles_of


@home_card
def annotator_cards(user) -> Iterator[HomeCard]:
    if ANNOTATOR not in roles_of(user):
        return
    assigned = VideoAssignment.objects.filter(annotator=user).values("video_id")
    videos = assigned.count()
    if not videos:
        return  # the waiting sentence says who assigns videos
    open_steps = MicroStep.objects.filter(
        label_missing(), video_id__in=assigned, status=MicroStep.Status.ACTIVE
    )
    problems = open_steps.count()
    yield HomeCard(
        role=ANNOTATOR,
        title="My videos",
        text="Open a video, segment it into micro-steps, place each cutoff and outcome and write "
        "the intents."
        if problems
        else "Every step of your videos has its three required labels. Open a video to add "
        "steps or refine the marks.",
        url=reverse("annotation:video-list"),
        link_text="My videos",
        count=videos,
        count_label=("video assigned", "videos assigned"),
        order=10,
    )
    if problems:
        first = open_steps.order_by("video__title", "video_id", "position").first()
        yield HomeCard(
            role=ANNOTATOR,
            title="Open problems",
            text="These steps still lack a required label (local intent, procedural intent or "
            f"next step). First: {first.display_name}.",
            url=reverse("annotation:workspace", args=[first.video_id]),
            link_text=f"Open {first.video.title}",
            count=problems,
            count_label=("step with open problems", "steps with open problems"),
            order=20,
        )


@home_card
def adjudicator_cards(user) -> Iterator[HomeCard]:
    if ADJUDICATOR not in roles_of(user):
        return
    with_steps = SourceVideo.objects.filter(
        Exists(MicroStep.objects.filter(video=OuterRef("pk"), status=MicroStep.Status.ACTIVE))
    ).count()
    yield HomeCard(
        role=ADJUDICATOR,
        title="Annotation",
        text="Read every video's steps and each step's history, read-only. Items where reviewers "
        "disagree will appear here when an audit assigned to you finds them.",
        url=reverse("annotation:video-list"),
        link_text="All videos",
        count=with_steps,
        count_label=("video with steps", "videos with steps"),
        order=10,
    )


@home_card
def admin_cards(user) -> Iterator[HomeCard]:
    if ADMIN not in roles_of(user):
        return
    videos = SourceVideo.objects.count()
    unassigned = SourceVideo.objects.exclude(
        Exists(VideoAssignment.objects.filter(video=OuterRef("pk")))
    ).count()
    if not videos:
        yield HomeCard(
            role=ADMIN,
            title="Videos",
            text="No video yet: import the first one (the file is probed, hashed and stored).",
            url=reverse("admin:media_sourcevideo_import"),
            link_text="Import a video",
            count=0,
            count_label=("video imported", "videos imported"),
            order=10,
        )
    elif unassigned:
        yield HomeCard(
            role=ADMIN,
            title="Assignments",
            text=f"{videos} {ngettext('video is', 'videos are', videos)} imported; assign the rest "
            "to annotators so they appear on their home page.",
            url=reverse("admin:annotation_videoassignment_add"),
            link_text="Assign a video",
            count=unassigned,
            count_label=("video without an annotator", "videos without an annotator"),
            order=10,
        )
    else:
        yield HomeCard(
            role=ADMIN,
            title="Videos",
            text="Every video has an annotator. Import more, or follow the work on the list.",
            url=reverse("annotation:video-list"),
            link_text="All videos",
            count=videos,
            count_label=("video assigned", "videos assigned"),
            order=10,
        )
    frozen = Release.objects.filter(frozen_at__isnull=False)
    releases = frozen.count()
    latest = frozen.order_by("-frozen_at", "-id").first()
    yield HomeCard(
        role=ADMIN,
        title="Releases",
        text=(
            f"The latest is {latest.name}. Freeze a new one to render or sample the current steps."
            if latest
            else "Freeze the current steps as a release: renders and sample designs start from one."
        ),
        url=reverse("admin:annotation_release_freeze"),
        link_text="Freeze a release",
        count=releases,
        count_label=("frozen release", "frozen releases"),
        order=30,
    )

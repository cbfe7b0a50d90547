"""The demo data set: generated videos with their frame numbers burned in, two scenes, a dozen
labelled micro-steps and one user per role. Seeded on an empty database only."""

from __future__ import annotations

import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

from annotation.models import VideoAssignment
from annotation.services import step_create
from media.models import Scene, SourceVideo
from media.synth import synth_video
from media.timebase import snap_to_frame
from studio.demo import DemoContext, demo_seeders
from studio.roles import ADMIN, ROLES, sync_role_groups

S = 1_000_000


@dataclass(frozen=True)
class DemoVideo:
    title: str
    scene: str
    vfr: bool
    seconds: int
    steps: tuple[tuple[float, float, float, float, str, str, str, tuple[str, ...]], ...]


# (start, cutoff, outcome, end) in seconds, then local / procedural / next / plausible next.
DEMO_VIDEOS = (
    DemoVideo(
        "kitchen-tea.mp4",
        "indoor/kitchen",
        False,
        60,
        (
            (
                2.0,
                4.2,
                4.6,
                5.0,
                "Fill the kettle with water",
                "Water is needed before it can boil",
                "Put the kettle on its base",
                ("Wipe the kettle dry",),
            ),
            (
                5.0,
                6.1,
                6.4,
                7.0,
                "Switch the kettle on",
                "Start heating the water for tea",
                "Take a mug from the shelf",
                ("Open the tea caddy",),
            ),
            (
                9.5,
                11.0,
                11.5,
                12.0,
                "Take a mug from the shelf",
                "A mug is needed to brew in",
                "Drop a tea bag into the mug",
                (),
            ),
            (
                12.0,
                13.4,
                13.8,
                14.5,
                "Drop a tea bag into the mug",
                "Prepare the mug for brewing",
                "Pour the boiling water",
                ("Add sugar first",),
            ),
            (
                20.0,
                22.5,
                23.0,
                24.0,
                "Pour the boiling water into the mug",
                "Brew the tea",
                "Wait for the tea to steep",
                ("Add milk",),
            ),
            (
                30.0,
                31.2,
                31.5,
                32.0,
                "Remove the tea bag",
                "Stop the tea from over-steeping",
                "Throw the tea bag away",
                (),
            ),
        ),
    ),
    DemoVideo(
        "garden-watering.mp4",
        "outdoor/garden",
        True,
        60,
        (
            (
                1.0,
                2.8,
                3.2,
                4.0,
                "Pick up the watering can",
                "Water is carried to the beds with it",
                "Walk to the tap",
                (),
            ),
            (
                4.0,
                6.0,
                6.4,
                7.5,
                "Open the tap",
                "Fill the can for watering",
                "Fill the can",
                ("Rinse the can first",),
            ),
            (
                7.5,
                10.5,
                11.0,
                12.0,
                "Fill the watering can",
                "Enough water for the whole bed",
                "Close the tap",
                (),
            ),
            (
                15.0,
                16.6,
                17.0,
                18.0,
                "Carry the can to the tomato bed",
                "The tomatoes are watered first",
                "Tilt the can over the plants",
                (),
            ),
            (
                18.0,
                20.0,
                20.5,
                22.0,
                "Water the tomato plants",
                "Keep the plants from drying out",
                "Move on to the next plant",
                ("Pull a weed",),
            ),
            (
                25.0,
                26.0,
                26.3,
                27.0,
                "Put the can down",
                "The bed is done",
                "Coil the hose",
                ("Pick up the rake",),
            ),
        ),
    ),
)

SCENES = (("indoor/kitchen", "Kitchen", "indoor"), ("outdoor/garden", "Garden", "outdoor"))


def demo_is_possible() -> bool:
    """Only an empty database gets the demo: no user and no video yet."""
    return not get_user_model().objects.exists() and not SourceVideo.objects.exists()


def seed_demo(*, password: str | None) -> tuple[str, list[str], list[str]]:
    """Create the demo; returns (password, user names, notes). Generates ~1 minute videos, then
    runs the seeders the higher layers registered (``studio.demo``)."""
    from media.services import video_import

    password = password or secrets.token_urlsafe(12)
    sync_role_groups()
    with tempfile.TemporaryDirectory(prefix="studio-demo-") as tmp, transaction.atomic():
        users = {}
        for role in ROLES:
            user = get_user_model().objects.create_user(
                username=f"demo-{role}",
                password=password,
                is_staff=role == ADMIN,
                is_superuser=role == ADMIN,
            )
            user.groups.add(Group.objects.get(name=role))
            users[role] = user
        scenes = {
            slug: Scene.objects.create(slug=slug, name=name, setting=setting)
            for slug, name, setting in SCENES
        }
        for demo in DEMO_VIDEOS:
            path = Path(tmp) / demo.title
            synth_video(
                path,
                seconds=demo.seconds,
                fps=30,
                size=(640, 360),
                vfr=demo.vfr,
                audio=not demo.vfr,
            )
            video = video_import(
                path=path, scene=scenes[demo.scene], title=demo.title, user=users[ADMIN]
            )
            VideoAssignment.objects.create(
                video=video, annotator=users["annotator"], assigned_by=users[ADMIN]
            )
            times = video.frame_times_us()
            for start, cutoff, outcome, end, local, why, nxt, plausible in demo.steps:
                start_us, cutoff_us, outcome_us, end_us = (
                    snap_to_frame(times, round(t * S)) for t in (start, cutoff, outcome, end)
                )
                step_create(
                    video=video,
                    author=users["annotator"],
                    start_us=start_us,
                    cutoff_us=cutoff_us,
                    outcome_us=outcome_us,
                    end_us=end_us,
                    local_intent=local,
                    procedural_intent=why,
                    next_step=nxt,
                    plausible_next_steps=list(plausible),
                    reason="demo data",
                )
        context = DemoContext(password=password, users=users)
        for seeder in demo_seeders():
            seeder(context)
    names = [u.username for u in [*users.values(), *context.extra_users]]
    return password, names, context.notes

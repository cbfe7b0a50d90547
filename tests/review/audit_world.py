"""A small, real audit for tests: one synthesised video (real file, real renders), four steps by
an annotator, a frozen release and manifest, an audit campaign of three auditors. Every name a
reviewer must never see is collected in ``World.secrets``."""

from __future__ import annotations

from dataclasses import dataclass, field

from annotation.releases import release_freeze
from annotation.services import step_create
from media.models import RenderedMedia, Scene
from media.renders import media_render
from media.services import video_import
from media.timebase import snap_to_frame
from review.campaigns.services import campaign_create
from review.manifests.services import design_create, manifest_freeze
from tests.synth_cache import synth_video

S = 1_000_000
STEPS = (
    (
        0.5,
        1.8,
        2.1,
        2.4,
        "Lift the red cup",
        "Clear the table before wiping it",
        "Put the cup in the sink",
        ["Rinse the cup"],
    ),
    (2.4, 3.6, 3.9, 4.3, "Grab the sponge", "Prepare to wipe the surface", "Wipe the table", []),
    (
        4.3,
        5.5,
        5.8,
        6.2,
        "Wipe the table top",
        "Leave a clean surface for the meal",
        "Hang the sponge up",
        ["Dry the table"],
    ),
    (
        6.2,
        7.4,
        7.7,
        8.0,
        "Hang the sponge on the hook",
        "Let it dry for next time",
        "Walk to the door",
        [],
    ),
)


@dataclass
class World:
    video: object
    release: object
    manifest: object
    campaign: object
    reviewers: list
    annotator: object
    steps: list
    secrets: list[str] = field(default_factory=list)


def synth_source(folder):
    """The world's video file (synthesise once per session and pass it to build_world)."""
    return synth_video(folder / "zebra-hidden-title.mp4", seconds=9, fps=30, size=(320, 180)).path


HIDDEN_TAG = "quince-hidden-tag"


def build_world(
    *, tmp_path, admin, annotator, reviewers, per_item=3, instructions="", source=None, extra=""
) -> World:
    """``extra`` is appended to every label (for example a script payload)."""
    scene = Scene.objects.get_or_create(
        slug="indoor/laundry_room", defaults={"name": "Laundry Room", "setting": "indoor"}
    )[0]
    path = source or synth_source(tmp_path)
    video = video_import(path=path, scene=scene, title="zebra-hidden-title.mp4", user=admin)
    times = video.frame_times_us()
    steps = []
    for start, cutoff, outcome, end, local, why, nxt, plausible in STEPS:
        marks = [snap_to_frame(times, round(t * S)) for t in (start, cutoff, outcome, end)]
        steps.append(
            step_create(
                video=video,
                author=annotator,
                start_us=marks[0],
                cutoff_us=marks[1],
                outcome_us=marks[2],
                end_us=marks[3],
                local_intent=local + extra,
                procedural_intent=why + extra,
                next_step=nxt + extra,
                plausible_next_steps=[p + extra for p in plausible],
                tags=[f"action_type:{HIDDEN_TAG}", "okra-hidden-label"],
            )
        )
    release = release_freeze(name="secret_release_v1", author=admin)
    design = design_create(
        author=admin,
        name="secret_audit_manifest",
        method="stratified",
        release=release,
        seed=7,
        params={"target_n": len(STEPS)},
        kind="audit",
    )
    manifest = manifest_freeze(design=design, author=admin)
    campaign = campaign_create(
        name="secret-campaign-name",
        kind="audit",
        manifest=manifest,
        people=reviewers,
        per_item=per_item,
        seed=11,
        author=admin,
        instructions=instructions,
    )
    world = World(video, release, manifest, campaign, list(reviewers), annotator, steps)
    world.secrets = [
        scene.slug,
        scene.name,
        "laundry",
        video.title,
        "zebra-hidden-title",
        video.sha256,
        annotator.username,
        release.name,
        manifest.name,
        # (campaign names are shown to participants by the campaign pages, so not listed)
        release.manifest_sha256,
        manifest.manifest_sha256,
        manifest.sample_list_sha256,
        *(str(s.uid) for s in steps),
        *(s.uid.hex for s in steps),
        video.file.name,
        # step tags describe the step for analysis: never shown to a reviewer
        HIDDEN_TAG,
        "okra-hidden-label",
        "action_type",
    ]
    return world


def render_pending() -> int:
    """Render every medium still waiting (as a worker would); returns how many."""
    count = 0
    for pk in RenderedMedia.objects.exclude(status=RenderedMedia.Status.READY).values_list(
        "pk", flat=True
    ):
        media_render(media_id=pk)
        count += 1
    return count


def answers(part: str, label: str = "valid", **overrides) -> dict:
    ids = ("C1", "C2", "C4", "C5", "C6") if part == "phase1" else ("C3", "C7")
    criteria = {cid: {"label": label, "comment": "", "error_types": []} for cid in ids}
    for cid, value in overrides.items():
        criteria[cid] = value if isinstance(value, dict) else {"label": value}
    return {"criteria": criteria}

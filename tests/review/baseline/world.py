"""A small, real human baseline for tests: the audit world's video and four steps (real file,
real renders), frozen as a release and a ``human_baseline`` manifest, and a baseline campaign
of three raters. Every name a rater must never see is in ``World.secrets``."""

from __future__ import annotations

from dataclasses import dataclass, field

from annotation.releases import release_freeze
from annotation.services import step_create
from media.models import Scene
from media.services import video_import
from media.timebase import snap_to_frame
from review.campaigns.services import campaign_create
from review.manifests.services import design_create, manifest_freeze
from tests.review.audit_world import STEPS, synth_source

S = 1_000_000


@dataclass
class World:
    video: object
    release: object
    manifest: object
    campaign: object
    raters: list
    annotator: object
    steps: list
    secrets: list[str] = field(default_factory=list)


def build_world(*, tmp_path, admin, annotator, raters, source=None, extra="", per_item=3):
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
            )
        )
    release = release_freeze(name="secret_release_v1", author=admin)
    design = design_create(
        author=admin,
        name="secret_baseline_manifest",
        method="stratified",
        release=release,
        seed=7,
        params={"target_n": len(STEPS)},
        kind="human_baseline",
    )
    manifest = manifest_freeze(design=design, author=admin)
    campaign = campaign_create(
        name="baseline-one",
        kind="human_baseline",
        manifest=manifest,
        people=raters,
        per_item=per_item,
        seed=20260713,
        author=admin,
        instructions="Answer from the clip alone.",
    )
    world = World(video, release, manifest, campaign, list(raters), annotator, steps)
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
        release.manifest_sha256,
        manifest.manifest_sha256,
        manifest.sample_list_sha256,
        *(str(s.uid) for s in steps),
        *(s.uid.hex for s in steps),
        video.file.name,
        # references and narrations
        *(s.local_intent for s in steps),
        *(s.procedural_intent for s in steps),
        *(s.next_step for s in steps),
        *(p for s in steps for p in s.plausible_next_steps),
    ]
    return world


def dims(local=("Lift the cup",), procedural=("Clear the table",), nxt=("Rinse it",), conf=4):
    """A complete answer payload; ``None`` for a dimension makes it unanswerable."""

    def one(texts):
        if texts is None:
            return {"answerable": False, "answers": [], "confidence": conf}
        return {"answerable": True, "answers": list(texts), "confidence": conf}

    return {
        "broken": False,
        "dimensions": {"local": one(local), "procedural": one(procedural), "next": one(nxt)},
    }

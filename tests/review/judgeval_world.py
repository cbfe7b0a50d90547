"""A small judge-validation world for tests: six steps over two videos in two scenes, a frozen
release, a pool of one closed and one open model run per step (plain data, as the scoring side
hands it over), the balanced design frozen as a manifest, and a campaign of three raters.
Every name a rater must never see is collected in ``World.secrets``."""

from __future__ import annotations

from dataclasses import dataclass, field

from annotation.releases import release_freeze
from annotation.services import step_create
from media.models import Scene
from review.campaigns.services import campaign_create
from review.judgeval.selection import PoolTriplet
from review.judgeval.services import judgeval_freeze

S = 1_000_000
CLOSED_RUN, OPEN_RUN = "ocelot-closed-run", "walrus-open-run"
PARAMS = {
    "steps_per_scene": 2,
    "bin_edges_us": [],
    "duration_counts": [4],
    "triplets_per_model": 4,
    "pairing_min": 4,
    "pairing_max": 4,
}


@dataclass
class World:
    release: object
    manifest: object
    campaign: object
    raters: list
    steps: list
    pool: list
    predictions: dict
    secrets: list[str] = field(default_factory=list)


def build_pool(release):
    from annotation.models import ReleaseStep

    pool, predictions = [], {}
    for rs in ReleaseStep.objects.filter(release=release).order_by("sample_id"):
        sid = str(rs.sample_id)
        duration = rs.end_us - rs.start_us
        pool.append(
            PoolTriplet(sid, rs.scene_slug, rs.video_sha256, duration, CLOSED_RUN, OPEN_RUN)
        )
        predictions[(sid, CLOSED_RUN)] = {
            "local": f"closed says {rs.local_intent}",
            "procedural": "closed procedural",
            "next": "closed next",
        }
        predictions[(sid, OPEN_RUN)] = {
            "local": f"open says {rs.local_intent}",
            "procedural": "open procedural",
            "next": "open next",
        }
    return pool, predictions


def build_world(*, make_video, admin, annotator, raters, extra="", seed=11) -> World:
    kitchen = Scene.objects.get_or_create(
        slug="indoor/pantry_nook", defaults={"name": "Pantry Nook", "setting": "indoor"}
    )[0]
    yard = Scene.objects.get_or_create(
        slug="outdoor/herb_bed", defaults={"name": "Herb Bed", "setting": "outdoor"}
    )[0]
    steps = []
    for v, where in enumerate((kitchen, yard)):
        video = make_video(scene=where, title=f"quokka-title-{v}.mp4")
        for i in range(3):
            steps.append(
                step_create(
                    video=video,
                    author=annotator,
                    start_us=i * 3 * S,
                    cutoff_us=i * 3 * S + S,
                    outcome_us=i * 3 * S + S,
                    end_us=i * 3 * S + 2 * S,
                    local_intent=f"Lift lid {v}{i}{extra}",
                    procedural_intent=f"Check the pot {v}{i}{extra}",
                    next_step=f"Stir the soup {v}{i}{extra}",
                    plausible_next_steps=[f"Taste it {v}{i}{extra}"],
                )
            )
    release = release_freeze(name="jv_release", author=admin)
    pool, predictions = build_pool(release)
    if extra:
        predictions = {k: {f: t + extra for f, t in v.items()} for k, v in predictions.items()}
    manifest = judgeval_freeze(
        name="jv_manifest",
        release=release,
        pool=pool,
        predictions=predictions,
        seed=seed,
        params=PARAMS,
        author=admin,
    )
    campaign = campaign_create(
        name="rating_round",
        kind="judge_validation",
        manifest=manifest,
        people=raters,
        instructions="Score each prediction against the reference.",
        author=admin,
    )
    secrets = [
        CLOSED_RUN,
        OPEN_RUN,
        "indoor/pantry_nook",
        "Pantry Nook",
        "outdoor/herb_bed",
        "Herb Bed",
        "quokka-title",
        annotator.username,
        *(str(s.uid) for s in steps),
        *(s.video.sha256 for s in steps),
    ]
    return World(release, manifest, campaign, list(raters), steps, pool, predictions, secrets)

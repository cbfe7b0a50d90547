"""The judge-validation part of the demo: two small prediction runs of example texts typed for
the demo (named as such; no model wrote them) over the release's steps outside the baseline
demo's (the demo rater answers those blind), the balanced design over them frozen as a
``judge_validation`` manifest, and a rating campaign of the demo rater and two more raters. The
two others have rated every triplet already, so the demo rater has items waiting and the admin's
report fills in as soon as the demo rater is through."""

from __future__ import annotations

from studio.demo import DemoContext, demo_seeder

DEMO_CAMPAIGN = "demo-judge-validation"
DEMO_MANIFEST = "demo_judge_validation_v1"
NOTE = "Demo rows, not a model: example predictions typed for the judge-validation demo."


def _example_run(name, endpoint, release, package, steps, shape):
    from scoring.models import Run, RunItem

    run = Run.objects.create(
        name=name,
        kind="prediction",
        release=release,
        condition="official",
        endpoint=endpoint,
        package=package,
        status="finished",
        provenance={"note": NOTE},
    )
    RunItem.objects.bulk_create(
        [
            RunItem(
                run=run,
                position=i,
                key=str(rs.sample_id),
                sample_id=rs.sample_id,
                state="done",
                outcome="ok",
                prediction=shape(rs),
            )
            for i, rs in enumerate(steps)
        ]
    )
    return run


@demo_seeder(order=80)
def seed_judgeval_demo(ctx: DemoContext) -> None:
    from collections import Counter

    from annotation.models import ReleaseStep
    from annotation.releases import release_freeze
    from review.baseline.demo import DEMO_MANIFEST as BASELINE_MANIFEST
    from review.campaigns.services import campaign_create
    from review.judgeval.imports import ratings_load
    from review.judgeval.models import JudgeTriplet
    from review.models import ManifestSample
    from scoring.endpoints import endpoint_create
    from scoring.judgeval.pool import judgeval_pool_freeze
    from scoring.packages import package_resolve
    from studio.roles import ADMIN, RATER

    admin = ctx.users[ADMIN]
    if ctx.release is None:
        ctx.release = release_freeze(name="demo_models_v1", author=admin)
    # The demo rater rates here and answers the human baseline blind: none of the baseline's
    # steps is drawn here, so nobody is shown the references of a step they still answer blind
    # (the exposure rule, docs/review.md, would exclude them otherwise).
    blind = set(
        ManifestSample.objects.filter(manifest__name=BASELINE_MANIFEST).values_list(
            "sample_id", flat=True
        )
    )
    steps = [
        rs
        for rs in ReleaseStep.objects.filter(release=ctx.release).order_by("sample_id")
        if rs.sample_id not in blind
    ]
    if not steps:
        return
    package = package_resolve("official-prediction")
    closed_ep, open_ep = (
        endpoint_create(
            name=name,
            base_url="http://127.0.0.1:9/v1",
            model=name,
            open_weights=open_weights,
            note=NOTE,
        )
        for name, open_weights in (("demo-typed-closed", False), ("demo-typed-open", True))
    )
    closed = _example_run(
        "demo-typed-closed-predictions",
        closed_ep,
        ctx.release,
        package,
        steps,
        lambda rs: {
            "local_intent": rs.local_intent,
            "procedural_intent": rs.procedural_intent,
            "next_step": rs.next_step,
        },
    )
    opened = _example_run(
        "demo-typed-open-predictions",
        open_ep,
        ctx.release,
        package,
        steps,
        lambda rs: {
            "local_intent": f"Handle the object ({rs.local_intent.lower()})",
            "procedural_intent": "Get on with the task",
            "next_step": "Do the next thing",
        },
    )
    per_scene = Counter(rs.scene_slug for rs in steps)
    scene_counts = {scene: min(2, n) for scene, n in per_scene.items()}
    total = sum(scene_counts.values())
    params = {
        "steps_per_scene": None,
        "scene_counts": scene_counts,
        "cover_videos": False,
        "duration_counts": None,
        "triplets_per_model": total,
        "pairing_min": total,
        "pairing_max": total,
    }
    manifest = judgeval_pool_freeze(
        name=DEMO_MANIFEST,
        release=ctx.release,
        closed=[closed],
        opened=[opened],
        seed=20260713,
        params=params,
        author=admin,
    )
    b = ctx.add_user("demo-rater-b", RATER)
    c = ctx.add_user("demo-rater-c", RATER)
    campaign = campaign_create(
        name=DEMO_CAMPAIGN,
        kind="judge_validation",
        manifest=manifest,
        people=[ctx.users[RATER], b, c],
        seed=20260713,
        author=admin,
        instructions="Score how well each prediction matches the reference, 0 to 100 for each "
        "of Local intent, Procedural intent and Next step.",
    )
    lines = []
    for n, t in enumerate(JudgeTriplet.objects.filter(manifest=manifest).order_by("id")):
        good = t.slot == "closed"
        for who, shift in ((b, 0), (c, 7)):
            lines.append(
                {
                    "rater": who.username,
                    "step": str(t.sample.sample_id),
                    "run": t.run_name,
                    "local": (85 if good else 40) - shift + n % 5,
                    "procedural": (80 if good else 30) - shift,
                    "next": (75 if good else 20) + shift,
                }
            )
    ratings_load(campaign=campaign, lines=lines, source="demo")
    ctx.notes.append(
        f"Judge validation {DEMO_CAMPAIGN}: {manifest.sample_count} steps x 2 triplets for "
        f"demo-{RATER} (demo-rater-b and -c have rated them all); the report is under Judge "
        "validation on the admin's home page."
    )

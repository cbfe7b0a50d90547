"""The human-baseline part of the demo: a small ``human_baseline`` manifest of the demo release
and a baseline campaign with the demo rater and two more raters. The two others have answered
every item already (agreeing on some, not on others; one Next left unanswerable, one item
reported broken), so the demo rater has items waiting; scoring's demo seeder sends these answers
to the stand-in judge (scoring/baseline_demo.py), so the report has something to show."""

from __future__ import annotations

from studio.demo import DemoContext, demo_seeder

DEMO_CAMPAIGN = "demo-baseline"
DEMO_MANIFEST = "demo_baseline_v1"


def _dim(texts, confidence):
    if texts is None:
        return {"answerable": False, "answers": [], "confidence": confidence}
    return {"answerable": True, "answers": list(texts), "confidence": confidence}


@demo_seeder(order=75)
def seed_baseline_demo(ctx: DemoContext) -> None:
    from annotation.releases import release_freeze
    from review.baseline.imports import responses_load
    from review.campaigns.services import campaign_create
    from review.manifests.services import design_create, manifest_freeze
    from studio.roles import ADMIN, RATER

    admin = ctx.users[ADMIN]
    if ctx.release is None:
        ctx.release = release_freeze(name="demo_models_v1", author=admin)
    design = design_create(
        author=admin,
        name=DEMO_MANIFEST,
        method="stratified",
        release=ctx.release,
        seed=20260713,
        params={"target_n": min(6, ctx.release.sample_count)},
        kind="human_baseline",
    )
    manifest = manifest_freeze(design=design, author=admin)
    b = ctx.add_user("demo-baseline-rater-b", RATER)
    c = ctx.add_user("demo-baseline-rater-c", RATER)
    rater = ctx.users[RATER]
    campaign = campaign_create(
        name=DEMO_CAMPAIGN,
        kind="human_baseline",
        manifest=manifest,
        people=[rater, b, c],
        seed=20260713,
        author=admin,
        instructions="Watch the clip (it ends where a model's view ends) and answer from it "
        "alone: what the person is doing now, what for, and what they will do next. Mark a "
        "question unanswerable when the clip does not tell.",
    )
    samples = list(manifest.samples.order_by("sample_id").values_list("sample_id", flat=True))
    lines = []
    for index, sample_id in enumerate(samples):
        for who, person in (("b", b), ("c", c)):
            if who == "c" and index == len(samples) - 1:
                lines.append({"rater": person.username, "step": str(sample_id), "broken": True,
                              "note": "The clip stopped at the first frame."})  # fmt: skip
                continue
            nxt = ["Put it down", "Reach for the next tool"] if index % 2 else ["Put it down"]
            lines.append(
                {
                    "rater": person.username,
                    "step": str(sample_id),
                    "local": _dim(["Pick up the object in front"], 4),
                    "procedural": _dim(
                        ["Get ready for the next part of the task"] if who == "b" or index % 3
                        else None, 3,
                    ),
                    "next": _dim(None if index == 1 and who == "c" else nxt, 2),
                }
            )  # fmt: skip
    responses_load(campaign=campaign, lines=lines, source="demo")
    ctx.notes.append(
        f"Human baseline {DEMO_CAMPAIGN}: {len(samples)} items for demo-{RATER} "
        "(demo-baseline-rater-b and -c have answered them); the report is under Human "
        "baselines."
    )

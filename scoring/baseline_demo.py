"""The scoring side of the human-baseline demo: the answers the two other demo raters gave are
sent to the stand-in judge (not a model) right away, so the admin's report has human scores
after ``make run``; the demo rater's own answers are judged by a later run (a new name: the
report reads the latest)."""

from __future__ import annotations

from studio.demo import DemoContext, demo_seeder

DEMO_JUDGE = "demo-baseline-judge"


@demo_seeder(order=80)
def seed_baseline_judge(ctx: DemoContext) -> None:
    from review.baseline.demo import DEMO_CAMPAIGN
    from review.campaigns.models import Campaign
    from scoring.demo import demo_endpoints
    from scoring.judges import judge_start
    from scoring.packages import package_resolve
    from studio.roles import ADMIN

    campaign = Campaign.objects.filter(name=DEMO_CAMPAIGN).first()
    if campaign is None:
        return
    _predictor, _second, judge = demo_endpoints()
    judge_start(
        name=DEMO_JUDGE,
        kind="reference",
        endpoint=judge,
        package=package_resolve("reference-judge"),
        campaign=campaign,
        user=ctx.users[ADMIN],
    )
    ctx.notes.append(
        f"Judge run {DEMO_JUDGE} scores the demo baseline's answers with the stand-in judge (not "
        "a model); after the demo rater answers, judge again under a new name (manage.py judge "
        f"demo-baseline-judge-2 --kind reference --campaign {DEMO_CAMPAIGN} --endpoint "
        "stand-in-judge --package reference-judge) and open Human baselines."
    )

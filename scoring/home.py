"""Home-page card of the scoring side: the admin's model and judge runs."""

from __future__ import annotations

from collections.abc import Iterator

from django.urls import reverse

from scoring.models import Run, RunStatus
from studio.home import HomeCard, home_card
from studio.roles import ADMIN, roles_of


@home_card
def admin_run_cards(user) -> Iterator[HomeCard]:
    if ADMIN not in roles_of(user):
        return
    running = Run.objects.filter(status=RunStatus.RUNNING).count()
    if running:
        text = "Predictions and judges are working; each run page shows live progress."
    else:
        text = "No run is in progress. Start predictions or a judge from the runs page."
    yield HomeCard(
        role=ADMIN,
        title="Model runs",
        text=text,
        url=reverse("scoring:run-list"),
        link_text="Runs",
        count=running,
        count_label=("run in progress", "runs in progress"),
        order=50,
    )


@home_card
def admin_baseline_cards(user) -> Iterator[HomeCard]:
    if ADMIN not in roles_of(user):
        return
    from review.baseline.kind import KIND
    from review.campaigns.models import Campaign

    count = Campaign.objects.filter(kind=KIND).count()
    if count:
        yield HomeCard(
            role=ADMIN,
            title="Human baselines",
            text="Human and matched model scores with the gap and its clustered interval, "
            "answerability, agreement, Next ambiguity, per rater, duration and scene.",
            url=reverse("scoring:baseline-list"),
            link_text="Open the baselines",
            count=count,
            count_label=("baseline campaign", "baseline campaigns"),
            order=62,
        )


@home_card
def admin_judgeval_card(user) -> Iterator[HomeCard]:
    """The admin's judge-validation reports (humans against the automatic judges)."""
    if ADMIN not in roles_of(user):
        return
    from review.campaigns.models import Campaign

    count = Campaign.objects.filter(kind="judge_validation").count()
    if not count:
        return
    yield HomeCard(
        role=ADMIN,
        title="Judge validation",
        text="Compare the automatic judges with blind human ratings of the same triplets.",
        url=reverse("scoring:judgeval-list"),
        link_text="Judge-validation reports",
        count=count,
        count_label=("campaign", "campaigns"),
        order=75,
    )


@home_card
def admin_qa_report_cards(user) -> Iterator[HomeCard]:
    if ADMIN not in roles_of(user):
        return
    from review.campaigns.models import Campaign

    campaigns = Campaign.objects.filter(kind="qa_review").count()
    if campaigns:
        yield HomeCard(
            role=ADMIN,
            title="QA review reports",
            text="Decisions on QA groups by structure, category and modality with Wilson "
            "intervals, agreement, proposed edits, and the QA judge's accuracy and mean score.",
            url=reverse("scoring:qa-reports"),
            link_text="Open the reports",
            count=campaigns,
            count_label=("QA-review campaign", "QA-review campaigns"),
            order=62,
        )

"""Inputs of the judge-validation report: the campaign's triplets and human ratings (review)
and the automatic scores of judge runs on the same predictions (scoring)."""

from __future__ import annotations

from review.judgeval.selectors import campaign_ratings, campaign_triplets
from scoring.judgeval.report import RatedTriplet, judgeval_report
from scoring.models import Judgement

JUDGE_RUN_KINDS = ("reference", "rater")


def judge_scores(*, triplets: list[dict], judges=None) -> dict[str, dict[tuple[str, str], tuple]]:
    """``{judge run: {(step uid, prediction run): (local, procedural, next)}}`` from the latest
    ok judgement of each judged prediction; ``judges`` limits the runs (default: every reference
    judge or blind-rater run that judged one of the triplets)."""
    runs = sorted({t["run"] for t in triplets})
    steps = {t["step"] for t in triplets}
    rows = (
        Judgement.objects.filter(
            prediction__run__name__in=runs,
            run__kind__in=JUDGE_RUN_KINDS,
            outcome="ok",
            local__isnull=False,
            procedural__isnull=False,
            next__isnull=False,
        )
        .order_by("id")
        .values_list(
            "run__name",
            "prediction__run__name",
            "prediction__sample_id",
            "local",
            "procedural",
            "next",
        )
    )
    if judges is not None:
        rows = rows.filter(run__name__in=list(judges))
    out: dict[str, dict] = {}
    for judge, run, sample_id, local, procedural, nxt in rows.iterator(chunk_size=2000):
        step = str(sample_id)
        if step in steps:
            out.setdefault(judge, {})[(step, run)] = (local, procedural, nxt)
    return out


def campaign_report(*, campaign, judges=None, n_resamples: int = 2000, seed: int = 0) -> dict:
    triplets = campaign_triplets(campaign=campaign)
    humans: dict[tuple[str, str], dict] = {}
    ratings = campaign_ratings(campaign=campaign)
    # The report's rater columns follow the raters' ids (docs/judge-validation.md), not names.
    rater_order = [name for _, name in sorted({(r["rater_id"], r["rater"]) for r in ratings})]
    for r in ratings:
        if None not in (r["local"], r["procedural"], r["next"]):
            humans.setdefault((r["step"], r["run"]), {})[r["rater"]] = (
                r["local"],
                r["procedural"],
                r["next"],
            )
    scores = judge_scores(triplets=triplets, judges=judges)
    names = sorted(scores) if judges is None else [j for j in judges if j in scores]
    rated = [
        RatedTriplet(
            sample_id=t["step"],
            model=t["run"],
            scene=t["scene"],
            video=t["video"],
            humans=humans.get((t["step"], t["run"]), {}),
            judges={
                j: scores[j][(t["step"], t["run"])]
                for j in names
                if (t["step"], t["run"]) in scores[j]
            },
        )
        for t in triplets
    ]
    manifest = campaign.manifest
    header = {
        "campaign": campaign.name,
        "state": campaign.state,
        "manifest": {
            "name": manifest.name,
            "manifest_sha256": manifest.manifest_sha256,
            "sample_list_sha256": manifest.sample_list_sha256,
        },
        "bootstrap": {"resamples": n_resamples, "seed": seed, "cluster": "source video"},
    }
    return judgeval_report(
        rated,
        raters_per_triplet=campaign.per_item,
        rater_order=rater_order,
        judges=names,
        n_resamples=n_resamples,
        seed=seed,
        header=header,
    )

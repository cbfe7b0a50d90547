"""Reads of a judge-validation campaign for staff-side code (the report, the export): the
current ratings with the triplet each one scores. Never used by a rater's page."""

from __future__ import annotations

from review.campaigns.services import current_submissions
from review.judgeval.kind import DIMENSIONS, PARTS, slot_order
from review.judgeval.models import JudgeTriplet


def campaign_triplets(*, campaign) -> list[dict]:
    """Every triplet of the campaign's manifest: step uid, slot, run, scene, video."""
    rows = JudgeTriplet.objects.filter(manifest=campaign.manifest).values_list(
        "sample__sample_id",
        "slot",
        "run_name",
        "sample__release_step__scene_slug",
        "sample__release_step__video_sha256",
    )
    return [
        {"step": str(sid), "slot": slot, "run": run, "scene": scene, "video": video}
        for sid, slot, run, scene, video in rows.order_by("sample__sample_id", "slot")
    ]


def campaign_ratings(*, campaign) -> list[dict]:
    """The current (not superseded) ratings: rater username and user id, step uid, run, slot,
    the three scores and the reason code, ordered by step, run, rater."""
    runs = {
        (str(sid), slot): run
        for sid, slot, run in JudgeTriplet.objects.filter(manifest=campaign.manifest).values_list(
            "sample__sample_id", "slot", "run_name"
        )
    }
    rows = current_submissions(campaign=campaign).values_list(
        "person_id", "person__username", "item__sample__sample_id", "part", "payload"
    )
    out = []
    for person_id, username, sample_id, part, payload in rows:
        if part not in PARTS:
            continue
        slot = slot_order(person_id, sample_id, campaign.seed)[PARTS.index(part)]
        out.append(
            {
                "rater": username,
                "rater_id": person_id,
                "step": str(sample_id),
                "run": runs.get((str(sample_id), slot), ""),
                "slot": slot,
                **{d: payload.get(d) for d in DIMENSIONS},
                "reason": payload.get("reason") or "",
            }
        )
    out.sort(key=lambda r: (r["step"], r["run"], r["rater"]))
    return out

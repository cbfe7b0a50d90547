"""A boundary campaign's records read into ``report.BoundaryItem`` rows, the report, and the
four-way valid set the boundary study filters on (read by ``scoring``; review never imports
scoring)."""

from __future__ import annotations

from review.audit.decisions import campaign_records
from review.audit.reporting import design
from review.boundary.kind import KIND, SCHEME
from review.boundary.report import BoundaryItem, boundary_report, four_way, item_outcomes
from review.boundary.windows import VALID, WINDOW_NAMES
from review.manifests.sampling import bin_labels


def _last_steps(release) -> set[int]:
    """Release step ids that are the last of their video (no Next visible window)."""
    from annotation.models import ReleaseStep

    last: dict[str, tuple[int, int]] = {}
    for pk, sha, start in ReleaseStep.objects.filter(release=release).values_list(
        "pk", "video_sha256", "start_us"
    ):
        if sha not in last or start > last[sha][0]:
            last[sha] = (start, pk)
    return {pk for _, pk in last.values()}


def report_items(campaign) -> list[BoundaryItem]:
    from review.campaigns.models import CampaignItem

    records = campaign_records(campaign, scheme=SCHEME)
    last = _last_steps(campaign.manifest.release)
    rows = CampaignItem.objects.filter(campaign=campaign).values_list(
        "pk", "sample__sample_id", "sample__duration_bin", "sample__release_step_id"
    )
    items = []
    for pk, sample_id, duration_bin, release_step_id in rows.order_by("pk"):
        record = records[pk]
        windows = [w for w in WINDOW_NAMES if w != "next_visible" or release_step_id not in last]
        items.append(
            BoundaryItem(
                key=str(sample_id),
                duration_bin=duration_bin,
                windows=windows,
                labels={w: record.labels(w) for w in WINDOW_NAMES},
                adjudications=dict(record.adjudications),
            )
        )
    return items


def campaign_report(campaign) -> dict:
    """The documented report (docs/boundary-audit.md) of ``campaign``."""
    manifest = campaign.manifest
    edges, _measure = design(manifest)
    header = {
        "campaign": campaign.name,
        "state": campaign.state,
        "release": manifest.release.name,
        "manifest": {
            "name": manifest.name,
            "samples_sha256": manifest.sample_list_sha256,
            "manifest_sha256": manifest.manifest_sha256,
        },
    }
    return boundary_report(
        report_items(campaign),
        required=campaign.per_item,
        header=header,
        bin_labels=bin_labels(edges),
    )


def boundary_campaign_for(manifest):
    """The boundary audit of ``manifest`` (the most recently created one), or None."""
    from review.campaigns.models import Campaign

    if manifest is None:
        return None
    campaigns = Campaign.objects.filter(kind=KIND, manifest=manifest)
    return campaigns.order_by("-created_at", "-pk").first()


def four_way_valid_set(campaign) -> dict:
    """What a study filters on: ``{"campaign", "state", "valid": [sample ids], "sets": {…}}``
    (``valid`` sorted; the sets as in the report)."""
    items = report_items(campaign)
    valid, official = [], 0
    for item in items:
        outcomes = item_outcomes(item, campaign.per_item)
        official += bool(outcomes["official"] and outcomes["official"].is_valid)
        if four_way(outcomes) == VALID:
            valid.append(item.key)
    return {
        "campaign": campaign.name,
        "state": campaign.state,
        "valid": sorted(valid),
        "sets": {"audited": len(items), "official_valid": official, "four_way_valid": len(valid)},
    }

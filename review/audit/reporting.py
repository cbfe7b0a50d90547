"""The audit report of a campaign: its records read into ``report.ReportItem`` rows, then the pure
computation of ``review.audit.report``."""

from __future__ import annotations

from collections import Counter, defaultdict

from django.db.models.fields.json import KeyTextTransform, KeyTransform

from annotation.models import MicroStep, ReleaseStep
from review.audit.criteria import CRITERION_IDS, INVALID
from review.audit.kind import campaign_error_codes
from review.audit.report import ReportItem, audit_report
from review.manifests.sampling import DEFAULT_BIN_EDGES_US, bin_labels, bin_of


def design(manifest) -> tuple[list[int], str]:
    design = (manifest.manifest or {}).get("design") or {}
    return list(design.get("bin_edges_us") or DEFAULT_BIN_EDGES_US), design.get("duration", "step")


def report_inputs(campaign) -> tuple[list[ReportItem], dict]:
    from review.audit.models import Adjudication, Correction
    from review.campaigns.models import CampaignItem, Submission

    manifest = campaign.manifest
    release = manifest.release
    edges, measure = design(manifest)
    rows = CampaignItem.objects.filter(campaign=campaign).values_list(
        "pk",
        "sample__sample_id",
        "sample__duration_bin",
        "sample__release_step__scene_slug",
        "sample__release_step__step_id",
    )
    rows = list(rows)
    # One pass over the current submissions straight into the report's rows (no per-decision
    # objects: this is the part that grows with items x reviewers x criteria).
    labels: dict[int, dict[str, list[str]]] = {r[0]: {} for r in rows}
    codes: dict[int, dict[str, set[str]]] = defaultdict(dict)
    # The labels come out of the database as plain text (a JSON path per criterion), so no payload
    # is decoded in Python; only the few submissions with an Invalid are read whole, for their
    # error types.
    subs = Submission.objects.filter(campaign=campaign, superseded_by__isnull=True)
    paths = {
        f"label_{cid}": KeyTextTransform(
            "label", KeyTransform(cid, KeyTransform("criteria", "payload"))
        )
        for cid in CRITERION_IDS
    }
    names = list(paths)
    with_invalid = []
    for item_id, sub_id, *found in (
        subs.annotate(**paths).values_list("item_id", "pk", *names).iterator(chunk_size=4000)
    ):
        into = labels.get(item_id)
        if into is None:
            continue
        for cid, label in zip(CRITERION_IDS, found, strict=True):
            if label:
                into.setdefault(cid, []).append(label)
                if label == INVALID:
                    with_invalid.append(sub_id)
    for item_id, payload in subs.filter(pk__in=set(with_invalid)).values_list("item_id", "payload"):
        for cid, answer in (payload or {}).get("criteria", {}).items():
            if answer.get("label") == INVALID and answer.get("error_types"):
                codes[item_id].setdefault(cid, set()).update(answer["error_types"])
    adjudications: dict[int, dict[str, str]] = defaultdict(dict)
    for item_id, cid, label in Adjudication.objects.filter(
        campaign=campaign, superseded_by__isnull=True
    ).values_list("item_id", "criterion", "label"):
        adjudications[item_id][cid] = label
    corrections = defaultdict(set)
    for item_id, kind in Correction.objects.filter(campaign=campaign).values_list(
        "item_id", "kind"
    ):
        corrections[item_id].add(kind)
    step_ids = [r[4] for r in rows if r[4] is not None]
    active = set(
        MicroStep.objects.filter(pk__in=step_ids, status=MicroStep.Status.ACTIVE).values_list(
            "pk", flat=True
        )
    )
    items = [
        ReportItem(
            key=str(sample_id), scene=scene, duration_bin=duration_bin, labels=labels[pk],
            adjudications=adjudications.get(pk, {}), error_codes=codes.get(pk, {}),
            corrections=corrections.get(pk, ()),
            deleted=step_id is not None and step_id not in active,
        )
        for pk, sample_id, duration_bin, scene, step_id in rows
    ]  # fmt: skip
    scenes = Counter()
    bins = Counter()
    for scene, start, cutoff, end in ReleaseStep.objects.filter(release=release).values_list(
        "scene_slug", "start_us", "cutoff_us", "end_us"
    ):
        scenes[scene] += 1
        bins[bin_of((cutoff if measure == "observation" else end) - start, edges)] += 1
    for b in range(len(edges) + 1):
        bins.setdefault(b, 0)
    context = {
        "header": {
            "campaign": campaign.name,
            "state": campaign.state,
            "release": release.name,
            "manifest": {
                "name": manifest.name,
                "samples_sha256": manifest.sample_list_sha256,
                "manifest_sha256": manifest.manifest_sha256,
            },
        },
        "bin_labels": bin_labels(edges),
        "release_scenes": dict(scenes),
        "release_bins": dict(bins),
        "error_codes": campaign_error_codes(campaign),
    }
    return items, context


def campaign_report(campaign) -> dict:
    """The documented report (docs/audit.md) of ``campaign``."""
    items, ctx = report_inputs(campaign)
    return audit_report(
        items,
        required=campaign.per_item,
        header=ctx["header"],
        error_codes=ctx["error_codes"],
        bin_labels=ctx["bin_labels"],
        release_scenes=ctx["release_scenes"],
        release_bins=ctx["release_bins"],
    )

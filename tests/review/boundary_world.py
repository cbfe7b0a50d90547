"""A small, real boundary audit for tests: the audit world's video and four steps, a frozen
diagnostic manifest of all four, and a boundary campaign of three auditors. The last step of the
video has no Next visible window."""

from __future__ import annotations

from review.boundary.kind import KIND
from review.campaigns.services import campaign_create
from review.manifests.services import design_create, manifest_freeze
from tests.review.audit_world import build_world


def build_boundary_world(*, tmp_path, admin, annotator, reviewers, source, extra="", per_item=3):
    world = build_world(
        tmp_path=tmp_path,
        admin=admin,
        annotator=annotator,
        reviewers=reviewers,
        per_item=per_item,
        source=source,
        extra=extra,
    )
    design = design_create(
        author=admin,
        name="secret_diagnostic_manifest",
        method="stratified",
        release=world.release,
        seed=9,
        params={"target_n": len(world.steps)},
        kind="diagnostic",
    )
    manifest = manifest_freeze(design=design, author=admin)
    world.audit_campaign = world.campaign
    world.manifest = manifest
    world.campaign = campaign_create(
        name="boundary-check",
        kind=KIND,
        manifest=manifest,
        people=reviewers,
        per_item=per_item,
        seed=13,
        author=admin,
        instructions="Rule every window." + extra,
    )
    world.secrets += [manifest.name, manifest.manifest_sha256, manifest.sample_list_sha256]
    return world


def lines_for(world, step, reviewers, labels_by_window, *, comment=""):
    """Import lines: ``labels_by_window`` maps a window to one label per reviewer."""
    out = []
    for window, labels in labels_by_window.items():
        for reviewer, label in zip(reviewers, labels, strict=True):
            line = {
                "kind": "decision",
                "reviewer": reviewer.username,
                "step": str(step.uid),
                "window": window,
                "label": label,
            }
            if comment:
                line["comment"] = comment
            out.append(line)
    return out

"""The boundary audit part of the demo: a diagnostic manifest of the demo release and a boundary
campaign with the demo auditor and the audit demo's two other reviewers, who have already ruled
every window (disagreeing on a few), so the demo auditor has items waiting and the adjudicator a
queue right after ``make run``."""

from __future__ import annotations

from studio.demo import DemoContext, demo_seeder

DEMO_CAMPAIGN = "demo-boundary"
DEMO_MANIFEST = "demo_boundary_v1"


@demo_seeder(order=75)
def seed_boundary_demo(ctx: DemoContext) -> None:
    from django.contrib.auth import get_user_model

    from annotation.releases import release_freeze
    from review.audit.imports import decisions_load
    from review.boundary.kind import KIND, SCHEME
    from review.boundary.media import available_windows
    from review.boundary.windows import INVALID, UNCERTAIN, VALID
    from review.campaigns.services import campaign_create
    from review.manifests.services import design_create, manifest_freeze
    from studio.roles import ADMIN, AUDITOR

    admin = ctx.users[ADMIN]
    if ctx.release is None:
        ctx.release = release_freeze(name="demo_models_v1", author=admin)
    design = design_create(
        author=admin,
        name=DEMO_MANIFEST,
        method="stratified",
        release=ctx.release,
        seed=20260714,
        params={"target_n": min(6, ctx.release.sample_count)},
        kind="diagnostic",
    )
    manifest = manifest_freeze(design=design, author=admin)
    users = get_user_model().objects
    others = []
    for name in ("demo-auditor-b", "demo-auditor-c"):
        user = users.filter(username=name).first() or ctx.add_user(name, AUDITOR)
        others.append(user)
    auditor = ctx.users[AUDITOR]
    campaign = campaign_create(
        name=DEMO_CAMPAIGN,
        kind=KIND,
        manifest=manifest,
        people=[auditor, *others],
        seed=20260714,
        author=admin,
        instructions="Each clip claims to be one observation condition of the same step. "
        "Rule each against its definition: Valid, Invalid or Uncertain.",
    )
    lines = []
    samples = manifest.samples.select_related("release_step").order_by("sample_id")
    for index, sample in enumerate(samples):
        for who, reviewer in enumerate(others):
            for window in available_windows(sample.release_step):
                label = VALID
                if index % 3 == 0 and window == "early":  # b and c split: the auditor decides
                    label = VALID if who == 0 else INVALID
                if index % 4 == 1 and window == "next_visible" and who == 0:
                    label = UNCERTAIN
                line = {
                    "kind": "decision",
                    "reviewer": reviewer.username,
                    "step": str(sample.sample_id),
                    "window": window,
                    "label": label,
                }
                if label == INVALID:
                    line["comment"] = "The action has already finished at the last frame."
                lines.append(line)
        if index == 0:  # the demo auditor's first item: Uncertain on early makes a split
            for window in available_windows(sample.release_step):
                lines.append(
                    {
                        "kind": "decision",
                        "reviewer": auditor.username,
                        "step": str(sample.sample_id),
                        "window": window,
                        "label": UNCERTAIN if window == "early" else VALID,
                    }
                )
    decisions_load(campaign=campaign, lines=lines, author=admin, scheme=SCHEME)
    ctx.notes.append(
        f"Boundary audit {DEMO_CAMPAIGN}: {len(samples)} steps for demo-{AUDITOR} to "
        "rule window by window; reports at /boundary/campaigns/."
    )

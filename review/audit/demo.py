"""The audit part of the demo: a manifest of the demo release and an audit campaign with the demo
auditor and two more reviewers. The two others have already judged every item (disagreeing on a
few criteria), so the demo auditor has items waiting and the adjudicator gets a queue as soon as
the auditor's answers leave a criterion unresolved. The demo auditor's answers on one item are
loaded too (a three-way split on C7), so the queue is not empty right after ``make run``."""

from __future__ import annotations

from studio.demo import DemoContext, demo_seeder

DEMO_CAMPAIGN = "demo-audit"
DEMO_MANIFEST = "demo_audit_v1"


@demo_seeder(order=70)
def seed_audit_demo(ctx: DemoContext) -> None:
    from annotation.releases import release_freeze
    from review.audit.criteria import CRITERION_IDS, INVALID, UNCERTAIN, VALID
    from review.audit.imports import decisions_load
    from review.campaigns.services import campaign_create
    from review.manifests.services import design_create, manifest_freeze
    from studio.roles import ADMIN, AUDITOR

    admin = ctx.users[ADMIN]
    if ctx.release is None:
        ctx.release = release_freeze(name="demo_models_v1", author=admin)
    count = ctx.release.sample_count
    design = design_create(
        author=admin,
        name=DEMO_MANIFEST,
        method="stratified",
        release=ctx.release,
        seed=20260713,
        params={"target_n": min(8, count)},
        kind="audit",
    )
    manifest = manifest_freeze(design=design, author=admin)
    b = ctx.add_user("demo-auditor-b", AUDITOR)
    c = ctx.add_user("demo-auditor-c", AUDITOR)
    auditor = ctx.users[AUDITOR]
    campaign = campaign_create(
        name=DEMO_CAMPAIGN,
        kind="audit",
        manifest=manifest,
        people=[auditor, b, c],
        seed=20260713,
        author=admin,
        instructions="Judge each step as it is released. Phase 1: the clip a model sees, with "
        "Local and Procedural intent. Phase 2 opens after you submit phase 1: the context "
        "around the step, with the Next step and its alternatives.",
    )
    samples = list(manifest.samples.order_by("sample_id").values_list("sample_id", flat=True))
    lines = []
    for index, sample_id in enumerate(samples):
        for who, reviewer in (("b", b), ("c", c)):
            for cid in CRITERION_IDS:
                label = VALID
                if index % 3 == 0 and cid == "C7":  # b and c split: the auditor decides
                    label = VALID if who == "b" else INVALID
                if index % 4 == 1 and cid == "C3" and who == "b":
                    label = UNCERTAIN
                line = {
                    "kind": "decision",
                    "reviewer": reviewer.username,
                    "step": str(sample_id),
                    "criterion": cid,
                    "label": label,
                }
                if label == INVALID:
                    line["error_types"] = ["next_not_immediate"]
                    line["comment"] = "The next step skips an action seen in the context."
                lines.append(line)
    if samples:  # the demo auditor's first item: Uncertain on C7 makes a three-way split
        for cid in CRITERION_IDS:
            label = UNCERTAIN if cid == "C7" else VALID
            lines.append(
                {
                    "kind": "decision",
                    "reviewer": auditor.username,
                    "step": str(samples[0]),
                    "criterion": cid,
                    "label": label,
                }
            )
    decisions_load(campaign=campaign, lines=lines, author=admin)
    ctx.notes.append(
        f"Audit campaign {DEMO_CAMPAIGN}: {len(samples)} items for demo-{AUDITOR} "
        "(demo-auditor-b and -c have judged them all); reports at /audit/."
    )

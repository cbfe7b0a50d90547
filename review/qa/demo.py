"""The QA part of the demo: a few QA groups on the first demo video (one a three-turn Chain, one
predictive: its turn carries a decision cutoff; with the video's sound, one about the clicks its
sound track carries every tenth of a second, ``media.synth``), imported as a frozen group set, a
complete-groups manifest of them and a small QA-review campaign for the demo auditor, so the
auditor's home page has QA groups waiting."""

from __future__ import annotations

import uuid

from studio.demo import DemoContext, demo_seeder

DEMO_SET = "demo_qa_v1"
DEMO_MANIFEST = "demo_qa_review_v1"
DEMO_CAMPAIGN = "demo-qa-review"
SEED = 20260921


def _ev(times, a: int, b: int, modality: str, text: str) -> dict:
    return {"start_us": int(times[a]), "end_us": int(times[b]), "modality": modality,
            "description": text}  # fmt: skip


def demo_records(video) -> list[dict]:
    """Three groups on ``video`` (in frames of its own index, so nothing needs snapping)."""
    times = video.frame_times_us()
    n = len(times)
    f = [min(n - 1, round(n * k / 20)) for k in range(21)]
    sound = "auditory" if video.has_audio else "visual"
    both = "audio_visual" if video.has_audio else "visual"

    def uid(k: int) -> str:
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"intent-studio-demo-qa-{k}"))

    def base(k, structure, category, modality, turns, episodes=()):
        return {
            "uid": uid(k), "video_sha256": video.sha256, "split": "test",
            "structure": structure, "category": category, "modality": modality,
            "turn_count": len(turns), "episodes": list(episodes),
            "provenance": {"source_ids": [f"demo-{k}"], "generator_version": "demo-1"},
            "turns": turns,
        }  # fmt: skip

    def turn(question, answer, evidence, depends=(), options=None, cutoff=None):
        made = {"question": question, "answer": answer, "options": options,
                "depends_on": list(depends), "evidence": evidence}  # fmt: skip
        if cutoff is not None:
            made["cutoff_us"] = int(times[cutoff])
        return made

    extra = []
    if video.has_audio:
        extra.append(
            base(4, "node", "world_perception", "auditory", [
                turn("How often does the click repeat in the sound?",
                     "Ten clicks every second", [_ev(times, f[3], f[6], "auditory",
                     "the clicks of the sound track")]),
            ])
        )  # fmt: skip
    return sorted(
        [
            *extra,
            base(5, "node", "goal_planning", "visual", [
                turn("What will the counter show next?", "A higher number than now",
                     [_ev(times, f[4], f[9], "visual", "the counter before the cutoff")],
                     cutoff=f[7]),
            ]),
            base(1, "node", "action_status", "visual", [
                turn("Which frame number is shown when the hand first moves?",
                     "The number in the corner at that moment", [_ev(times, f[2], f[4], "visual",
                     "the counter while the scene changes")],
                     options=["The number in the corner at that moment", "No number is shown"]),
            ]),
            base(2, "edge", "world_perception", "visual", [
                turn("What changes on screen between the two marked moments?",
                     "The frame counter increases", [
                         _ev(times, f[6], f[7], "visual", "the counter before"),
                         _ev(times, f[9], f[10], "visual", "the counter after")]),
            ]),
            base(3, "chain", "goal_planning", both, [
                turn("What is on screen at the start?", "A numbered frame",
                     [_ev(times, f[11], f[13], "visual", "the first numbered frames")]),
                turn("Does the counter keep rising?", "Yes, by one each frame",
                     [_ev(times, f[13], f[15], sound, "the counter keeps going")], depends=[0]),
                turn("Given both, what comes next?", "A higher number",
                     [_ev(times, f[16], f[18], "visual", "the later frames")], depends=[0, 1]),
            ]),
        ],
        key=lambda r: r["uid"],
    )  # fmt: skip


@demo_seeder(order=80)
def seed_qa_demo(ctx: DemoContext) -> None:
    from media.models import SourceVideo
    from review.campaigns.services import campaign_create
    from review.qa.imports import qa_import
    from review.qa.sampling import qa_manifest_freeze
    from studio.canonical import canonical_bytes
    from studio.roles import ADMIN, AUDITOR

    video = SourceVideo.objects.filter(status=SourceVideo.Status.READY).order_by("id").first()
    if video is None:
        return
    admin = ctx.users[ADMIN]
    records = demo_records(video)
    text = "".join(canonical_bytes(r).decode("utf-8") + "\n" for r in records)
    group_set, _ = qa_import(text=text, name=DEMO_SET, author=admin, note="The demo's QA groups")
    manifest = qa_manifest_freeze(
        group_set=group_set, name=DEMO_MANIFEST, seed=SEED,
        params={"n_groups": len(records)}, author=admin,
    )  # fmt: skip
    campaign_create(
        name=DEMO_CAMPAIGN,
        kind="qa_review",
        manifest=manifest,
        people=[ctx.users[AUDITOR]],
        seed=SEED,
        author=admin,
        instructions="Review each QA group whole: jump to every evidence interval (keys 1-9), "
        "check each turn, then accept, request revision, reject or mark uncertain. Propose "
        "edits beside the original; media that will not play stays uncertain.",
    )
    ctx.notes.append(
        f"QA review {DEMO_CAMPAIGN}: {len(records)} QA groups for demo-{AUDITOR}; QA groups and "
        "edits at /qa/sets/, the report at /qa-reports/."
    )

"""A small, real QA review for tests: one synthesised video with sound (real file, real
renders), four QA groups (one a three-turn Chain), a frozen set and manifest, a campaign of
reviewers. ``World.secrets`` lists what a reviewer must never see."""

from __future__ import annotations

from dataclasses import dataclass, field

from media.models import Scene
from media.services import video_import
from review.campaigns.services import campaign_create
from review.qa.imports import qa_import
from review.qa.sampling import qa_manifest_freeze
from tests.review.qa.helpers import at_frame, evidence, group, jsonl
from tests.synth_cache import synth_video


def synth_qa_source(folder):
    return synth_video(
        folder / "walrus-hidden-title.mp4", seconds=8, fps=30, size=(320, 180), audio=True
    ).path


@dataclass
class World:
    video: object
    group_set: object
    manifest: object
    campaign: object
    reviewers: list
    records: list
    secrets: list[str] = field(default_factory=list)


def qa_records(video_sha: str, extra: str = "") -> list[dict]:
    chain = group(1, video_sha, structure="chain", turns=3, modality="audio_visual")
    chain["turns"][0]["evidence"] = [evidence(15, 30), evidence(40, 55, "auditory", "a knock")]
    chain["turns"][1]["evidence"] = [evidence(70, 90)]
    chain["turns"][2]["evidence"] = [evidence(100, 130, "auditory", "a bell rings")]
    chain["turns"][2]["options"] = ["Answer 2", "Something else"]
    chain["turns"][2]["cutoff_us"] = at_frame(100)  # predictive: what follows frame 100
    records = [
        chain,
        group(2, video_sha, category="world_perception"),
        group(3, video_sha, structure="edge"),
        group(4, video_sha, structure="loop", turns=2),
    ]
    for r in records:
        r["provenance"]["source_ids"] = ["secret-source-id-4711"]
        r["provenance"]["generator_version"] = "secret-generator-9"
        for t in r["turns"]:
            t["question"] += extra
            t["answer"] += extra
            if t["options"]:
                t["options"] = [o + extra for o in t["options"]]
            for e in t["evidence"]:
                e["description"] += extra
    return sorted(records, key=lambda r: r["uid"])


def build_qa_world(
    *, tmp_path, admin, reviewers, per_item=1, extra="", source=None, params=None
) -> World:
    scene = Scene.objects.get_or_create(
        slug="indoor/music_room", defaults={"name": "Music Room", "setting": "indoor"}
    )[0]
    path = source or synth_qa_source(tmp_path)
    video = video_import(path=path, scene=scene, title="walrus-hidden-title.mp4", user=admin)
    records = qa_records(video.sha256, extra)
    group_set, _ = qa_import(text=jsonl(records), name="secret_qa_set_v1", author=admin)
    manifest = qa_manifest_freeze(
        group_set=group_set, name="secret_qa_manifest", seed=20260921,
        params=params or {"n_groups": len(records)}, author=admin,
    )  # fmt: skip
    campaign = campaign_create(
        name="qa-campaign", kind="qa_review", manifest=manifest, people=reviewers,
        per_item=per_item, seed=5, author=admin,
    )  # fmt: skip
    world = World(video, group_set, manifest, campaign, list(reviewers), records)
    world.secrets = [
        scene.slug,
        "music_room",
        video.title,
        "walrus-hidden-title",
        video.sha256,
        video.file.name,
        group_set.name,
        manifest.name,
        group_set.manifest_sha256,
        manifest.manifest_sha256,
        "secret-source-id-4711",
        "secret-generator-9",
        *(r["uid"] for r in records),
        *(r["uid"].replace("-", "") for r in records),
    ]
    return world

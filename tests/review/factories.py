"""A fixed, named data set for release and manifest tests: the same content whatever the order
it is inserted in, so hashes can be compared as literal values across databases."""

from __future__ import annotations

import hashlib
import random
import uuid

from annotation.models import MicroStep
from annotation.services import step_create
from media.models import Scene, SourceVideo

S = 1_000_000
NAMESPACE = uuid.UUID("8f5d2c1e-4b7a-4e0f-9c3d-2a1b0c9d8e7f")
SCENES = ("indoor/kitchen", "indoor/workshop", "outdoor/yard")
# (scene, video name, step durations in tenths of a second): every bin of the default edges
# (<1 s, 1-2 s, 2-4 s, >=4 s) appears, videos differ in size.
VIDEOS = (
    ("indoor/kitchen", "kitchen-a", (5, 8, 12, 15, 25, 30, 45, 60, 7, 18, 33, 90)),
    ("indoor/kitchen", "kitchen-b", (6, 14, 22, 41, 9, 17)),
    ("indoor/workshop", "workshop-a", (4, 11, 19, 28, 37, 52, 70, 3, 13, 26, 8, 100)),
    ("indoor/workshop", "workshop-b", (9, 16, 24, 48)),
    ("outdoor/yard", "yard-a", (7, 12, 31, 44, 66, 5, 15, 21, 39)),
)


def step_uid(video_name: str, index: int) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"{video_name}/{index}")


def video_sha(video_name: str) -> str:
    return hashlib.sha256(f"source:{video_name}".encode()).hexdigest()


def make_source(*, scene: Scene, name: str, seconds: int = 600, fps: int = 30) -> SourceVideo:
    video = SourceVideo(
        scene=scene,
        title=f"{name}.mp4",
        file=f"sources/none-{name}.mp4",
        sha256=video_sha(name),
        size_bytes=1,
        container="mov,mp4,m4a,3gp,3g2,mj2",
        codec="h264",
        width=640,
        height=360,
        fps_num=fps,
        duration_us=seconds * S,
    )
    video.set_frame_times_us([round(i * S / fps) for i in range(seconds * fps)])
    video.save()
    return video


def step_plan() -> list[dict]:
    """Every step of the data set as keyword arguments for step_create (plus its uid)."""
    plan = []
    for scene, name, tenths in VIDEOS:
        t = 2 * S
        for i, d in enumerate(tenths):
            length = d * S // 10
            cutoff = t + max(length * 2 // 3, 100_000)
            plan.append(
                {
                    "video_name": name,
                    "scene": scene,
                    "uid": step_uid(name, i),
                    "start_us": t,
                    "cutoff_us": min(cutoff, t + length),
                    "outcome_us": min(cutoff + 50_000, t + length),
                    "end_us": t + length,
                    "local_intent": f"{name} step {i}: grip the handle",
                    "procedural_intent": f"to move task {i % 3} forward",
                    "next_step": f"put it down ({i + 1})",
                    "plausible_next_steps": [f"wipe it {i}", "läuft weiter — ✓"][: i % 3],
                }
            )
            t += length + 300_000  # a gap between steps
    return plan


def build_dataset(*, author, shuffle_seed: int | None = None) -> dict[str, SourceVideo]:
    """Create the scenes, videos and steps; ``shuffle_seed`` shuffles every insertion order."""
    rng = random.Random(shuffle_seed)
    scenes = list(SCENES)
    videos = list(VIDEOS)
    plan = step_plan()
    if shuffle_seed is not None:
        rng.shuffle(scenes)
        rng.shuffle(videos)
        rng.shuffle(plan)
    scene_rows = {}
    for slug in scenes:
        scene_rows[slug] = Scene.objects.get_or_create(
            slug=slug, defaults={"name": slug.split("/")[1].title(), "setting": slug.split("/")[0]}
        )[0]
    video_rows = {}
    for scene, name, _ in videos:
        video_rows[name] = make_source(scene=scene_rows[scene], name=name)
    for item in plan:
        item = dict(item)
        name, uid = item.pop("video_name"), item.pop("uid")
        item.pop("scene")
        step = step_create(video=video_rows[name], author=author, **item)
        # Fixed uids make the hashes literal constants; the uid is otherwise a random UUID4.
        MicroStep.objects.filter(pk=step.pk).update(uid=uid)
    return video_rows

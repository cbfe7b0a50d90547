"""The media of a published benchmark: rendered by the media pipeline, verified, copied under
``media/`` named by the SHA-256 of their bytes.

Each (step, condition) asks the pipeline for exactly the media a studio run of that condition
uses (``scoring.runs.services.media_profile``: the clip, and the 16 frames an images endpoint is
sent; a frame-set condition's frames), with the run's seed rule, so the shipped files are the
files a studio run sends. A medium that is not ready is rendered in this process, all the media
of one step from one decode; only media the pipeline marked ready after verifying them (frame
count, times, PNG structure) are copied, and each copy is hashed as it is written.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from annotation.models import ReleaseStep
from annotation.rendering import release_step_jobs
from media.models import RenderedMedia, SourceVideo
from media.renders import media_for_window, media_render_group
from media.windows import WindowUnavailable, condition_window
from scoring.publish.layout import (
    CLIP_PROFILE,
    FRAMES_PER_SET,
    MEDIA_PREFIX,
    is_clip_condition,
    media_name,
)
from scoring.runs.media import media_files
from scoring.runs.services import media_profile

_CHUNK = 1 << 20
READY = RenderedMedia.Status.READY
WAIT_SECONDS = 900  # for media a worker is rendering at the same time
POLL_SECONDS = 1.0


class PublishError(ValueError):
    """The benchmark cannot be published as asked; nothing is left behind."""


@dataclass
class StepMedia:
    """The media rows of one step: {column: medium} per condition, and the conditions the step
    has no window for (with the reason)."""

    media: dict[str, RenderedMedia] = field(default_factory=dict)
    unavailable: dict[str, str] = field(default_factory=dict)


def _profiles(condition: str) -> list[tuple[str, str]]:
    """(column stem, render profile) of a condition's media."""
    frames = media_profile(condition, media="frames", frames=FRAMES_PER_SET)
    if frames is None:
        return []
    if is_clip_condition(condition):
        return [
            (f"{MEDIA_PREFIX}{condition}_clip", CLIP_PROFILE),
            (f"{MEDIA_PREFIX}{condition}_frames", frames),
        ]
    return [(f"{MEDIA_PREFIX}{condition}_frames", frames)]


def media_plan(
    steps: list[ReleaseStep], conditions: list[str], *, seed: int
) -> dict[str, StepMedia]:
    """The media rows every (step, condition) needs, created when new (not rendered yet)."""
    if not any(_profiles(c) for c in conditions):
        return {str(s.sample_id): StepMedia() for s in steps}
    jobs, missing = release_step_jobs(steps, seed=seed)
    if missing:
        raise PublishError(
            f"{len(missing)} step(s) have no source video on this instance (for example "
            f"{missing[0]}); import the source videos to render their media"
        )
    videos = {
        v.pk: v for v in SourceVideo.objects.filter(pk__in={j.video_id for j in jobs.values()})
    }
    plan: dict[str, StepMedia] = {}
    for step in steps:
        uid = str(step.sample_id)
        job, entry = jobs[uid], StepMedia()
        for condition in conditions:
            profiles = _profiles(condition)
            if not profiles:
                continue
            try:
                window = condition_window(
                    condition, step=job.step, previous=job.previous, following=job.following
                )
            except WindowUnavailable as exc:
                entry.unavailable[condition] = str(exc)
                continue
            for column, profile in profiles:
                entry.media[column] = media_for_window(
                    video=videos[job.video_id],
                    window=window,
                    profile=profile,
                    seed=job.seed,
                    enqueue=False,
                )
        plan[uid] = entry
    return plan


def _not_ready_groups(plan: dict[str, StepMedia], ready: set[int]) -> list[list[int]]:
    groups = []
    for entry in plan.values():
        ids = list(dict.fromkeys(m.pk for m in entry.media.values() if m.pk not in ready))
        if ids:
            groups.append(ids)
    return groups


def media_render_missing(
    plan: dict[str, StepMedia],
    progress: Callable[[int, int], None],
    *,
    wait_seconds: float | None = None,
) -> None:
    """Render, in this process, every planned medium that is not ready (one decode per step).

    A medium a worker is rendering right now (its lease is alive) is waited for, and taken over
    if its lease runs out; a medium the pipeline could not render or verify stops the
    publication with its reason."""
    ids = [m.pk for entry in plan.values() for m in entry.media.values()]
    ready = {m.pk for entry in plan.values() for m in entry.media.values() if m.status == READY}
    groups = _not_ready_groups(plan, ready)
    for done, group in enumerate(groups, 1):
        media_render_group(media_ids=group)
        progress(done, len(groups))
    wait_seconds = WAIT_SECONDS if wait_seconds is None else wait_seconds
    deadline = time.monotonic() + wait_seconds
    while True:
        fresh = {m.pk: m for m in RenderedMedia.objects.filter(pk__in=ids)}
        failed = [m for m in fresh.values() if m.status == RenderedMedia.Status.FAILED]
        if failed:
            raise PublishError(
                f"{len(failed)} medium/media could not be rendered and verified, for example "
                f"{failed[0].key[:12]}: {failed[0].error or failed[0].status}"
            )
        ready = {pk for pk, m in fresh.items() if m.status == READY}
        if len(ready) == len(fresh):
            break
        if time.monotonic() > deadline:
            raise PublishError(
                f"{len(fresh) - len(ready)} medium/media are still being rendered elsewhere "
                f"after {wait_seconds:.0f} s; publish again once the media workers are through"
            )
        time.sleep(POLL_SECONDS)
        for group in _not_ready_groups(plan, ready):
            media_render_group(media_ids=group)  # takes over a medium whose lease ran out
    for entry in plan.values():
        entry.media = {column: fresh[m.pk] for column, m in entry.media.items()}


class MediaCopier:
    """Copies media files into ``media/`` by content, once each; remembers every file's hash."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.written: dict[str, int] = {}  # relative path -> size

    def copy(self, source: str, suffix: str) -> tuple[str, str]:
        """(relative path, SHA-256) of ``source`` copied under media/."""
        tmp = self.folder / "media" / f".incoming-{os.getpid()}"
        tmp.parent.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        size = 0
        with open(source, "rb") as src, open(tmp, "wb") as dst:
            while chunk := src.read(_CHUNK):
                digest.update(chunk)
                dst.write(chunk)
                size += len(chunk)
        sha = digest.hexdigest()
        name = media_name(sha, suffix)
        if name in self.written:
            tmp.unlink()
        else:
            os.replace(tmp, self.folder / name)
            self.written[name] = size
        return name, sha


def media_cells(entry: StepMedia, columns: list[str], copier: MediaCopier) -> dict:
    """The media cells of one row: paths and SHA-256s (nulls where the step has no window)."""
    cells: dict = {}
    for column in columns:
        if column.endswith("_sha256"):
            continue
        medium = entry.media.get(column)
        if medium is None:
            cells[column], cells[f"{column}_sha256"] = None, None
            continue
        if medium.kind == RenderedMedia.Kind.FRAMES:
            copied = [copier.copy(path, ".png") for path in media_files(medium)]
            if len(copied) != medium.frame_count:
                raise PublishError(f"medium {medium.key[:12]}: frame files missing")
            cells[column] = [name for name, _ in copied]
            cells[f"{column}_sha256"] = [sha for _, sha in copied]
        else:
            (path,) = media_files(medium)
            cells[column], cells[f"{column}_sha256"] = copier.copy(path, ".mp4")
    return cells


def copy_file(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)

"""Celery tasks of the media queue. Thin: fetch by id, call the service."""

from __future__ import annotations

from celery import shared_task

import studio.celery  # noqa: F401  (the app these tasks bind to; studio/__init__.py)
from media.renders import media_render, media_render_group


# acks_late + reject_on_worker_lost: a worker killed mid-render does not acknowledge the message,
# and the render service itself is idempotent, so running the task again is always safe.
@shared_task(
    name="media.render_medium", idempotent=True, acks_late=True, reject_on_worker_lost=True
)
def render_medium(media_id: int) -> str | None:
    media = media_render(media_id=media_id)
    return None if media is None else media.status


@shared_task(
    name="media.render_media_group", idempotent=True, acks_late=True, reject_on_worker_lost=True
)
def render_media_group(media_ids: list[int]) -> list[str]:
    return [media.status for media in media_render_group(media_ids=media_ids)]


# The import service holds a lease and writes only its holder's result, and the import itself is
# keyed by the file's SHA-256, so a message delivered twice (or after a worker died) is harmless.
@shared_task(name="media.import_video", idempotent=True, acks_late=True, reject_on_worker_lost=True)
def import_video(import_id: int) -> str | None:
    from media.imports import video_import_run

    job = video_import_run(import_id=import_id)
    return None if job is None else job.status

"""Celery tasks of the media queue. Thin: fetch by id, call the service."""

from __future__ import annotations

from celery import shared_task

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

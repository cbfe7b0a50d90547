"""Uploads imported on a media worker, so no web worker waits for a probe.

The admin's upload request does only what is quick: it refuses what the first bytes already show
is no video (``sniff_head``), stages the file in storage under a random name and records a
``VideoImport``; a media worker then probes and imports it (``video_import_run``), reporting
progress on the row, which the import page polls. The worker holds a lease on the row while it
works (``studio/leases.py``): if it dies, the sweeper queues the import again, up to
``LEASE_MAX_ATTEMPTS`` claims, then marks it failed and removes the staged file. A refusal or a
failure writes no SourceVideo and leaves no stored file.
"""

from __future__ import annotations

import logging
import secrets
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Q

from media.ffmpeg import FFmpegError
from media.models import Scene, VideoImport
from media.probe import SNIFF_BYTES, MediaRejected, sniff_head
from media.services import DuplicateVideo, video_import
from studio import services as studio_services
from studio.enqueue import task_named
from studio.leases import WorkKind, lease_claim, lease_kept, lease_release

log = logging.getLogger(__name__)

STAGING_DIR = "imports"
PROGRESS_WRITE_SECONDS = 1.0  # at most one progress write a second per import


def video_import_stage(*, upload, scene: Scene, title: str = "", user=None) -> VideoImport:
    """Stage an uploaded file (a Django ``UploadedFile``) and queue its import on a worker.

    MediaRejected at once when the first bytes are not a video container; nothing is stored then.
    """
    head = upload.read(SNIFF_BYTES)
    upload.seek(0)
    sniff_head(head)
    name = default_storage.save(f"{STAGING_DIR}/{secrets.token_hex(16)}.upload", upload)
    try:
        with transaction.atomic():
            job = VideoImport(
                scene=scene,
                title=(title or Path(upload.name).name)[:255],
                upload=name,
                size_bytes=upload.size,
                created_by=user if user is not None and user.is_authenticated else None,
            )
            job.full_clean()
            job.save()
            video_import_enqueue(import_ids=[job.pk])
    except BaseException:
        default_storage.delete(name)
        raise
    return job


def video_import_enqueue(*, import_ids) -> None:
    import_video = task_named("media.import_video")

    for import_id in import_ids:
        transaction.on_commit(partial(import_video.delay, import_id))


def video_import_progress(job: VideoImport) -> dict:
    """What the import page shows and polls."""
    return {
        "status": job.status,
        "progress": round(job.progress, 4),
        "error": job.error,
        "video": job.video_id,
        "attempts": job.attempts,
        "finished": job.finished,
    }


@contextmanager
def _local_copy(name: str) -> Iterator[Path]:
    """A path ffmpeg can open: the stored file itself on a local storage, else a temporary copy."""
    try:
        yield Path(default_storage.path(name))
        return
    except NotImplementedError:
        pass
    with tempfile.NamedTemporaryFile(suffix=".upload") as handle, default_storage.open(name) as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            handle.write(chunk)
        handle.flush()
        yield Path(handle.name)


def video_import_run(*, import_id: int) -> VideoImport | None:
    """Probe and import one staged upload. Safe to run twice, concurrently or after a crash: only
    the holder of the lease works, and only the holder's result is written."""
    owner = lease_claim(
        queryset=VideoImport.objects.filter(
            status__in=[VideoImport.Status.PENDING, VideoImport.Status.PROBING]
        ),
        pk=import_id,
        set={"status": VideoImport.Status.PROBING, "progress": 0.0, "error": ""},
    )
    if owner is None:
        return VideoImport.objects.filter(pk=import_id).first()
    job = VideoImport.objects.select_related("scene", "created_by").get(pk=import_id)
    last_write = [0.0]

    def progress(share: float) -> None:
        if time.monotonic() - last_write[0] >= PROGRESS_WRITE_SECONDS:
            last_write[0] = time.monotonic()
            VideoImport.objects.filter(pk=import_id, lease_owner=owner).update(progress=share)

    with lease_kept(model=VideoImport, pk=import_id, owner=owner):
        try:
            with _local_copy(job.upload) as path:
                video = video_import(
                    path=path,
                    scene=job.scene,
                    title=job.title,
                    user=job.created_by,
                    progress=progress,
                )
        except DuplicateVideo as exc:
            if job.attempts > 1 and exc.existing.created_at >= job.created_at:
                # An earlier attempt of this import stored the video and died before saying so.
                video = exc.existing
            else:
                return _finish(job, owner, error=str(exc))
        except (MediaRejected, FFmpegError) as exc:
            return _finish(job, owner, error=str(exc))
    return _finish(job, owner, video=video)


def _finish(job: VideoImport, owner: str, *, video=None, error: str = "") -> VideoImport:
    values = {"finished_at": studio_services.now(), "error": error[:5000]}
    if video is not None:
        values |= {"status": VideoImport.Status.DONE, "video": video, "progress": 1.0}
    else:
        values |= {"status": VideoImport.Status.FAILED}
    if lease_release(model=VideoImport, pk=job.pk, owner=owner, set=values):
        _remove_upload(job)
    else:
        log.warning("import %s was taken over; leaving its result to the new holder", job.pk)
    return VideoImport.objects.get(pk=job.pk)


def _remove_upload(job: VideoImport) -> None:
    if job.upload and default_storage.exists(job.upload):
        default_storage.delete(job.upload)


def _cleanup_after_dead_attempt(row: VideoImport) -> None:
    # The staged file is needed by the next attempt; only a final failure removes it.
    if row.attempts >= IMPORT_WORK.attempts_allowed:
        _remove_upload(row)


IMPORT_WORK = WorkKind(
    name="media.import",
    model=VideoImport,
    running=Q(status=VideoImport.Status.PROBING),
    requeue=lambda ids: video_import_enqueue(import_ids=ids),
    reset={"status": VideoImport.Status.PENDING},
    fail={"status": VideoImport.Status.FAILED},
    cleanup=_cleanup_after_dead_attempt,
)

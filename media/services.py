"""Writes of the media app: importing source videos. (Uploads handed to a worker: ``media.imports``;
rendering: ``media.renders``.)"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

from django.core.files import File
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction

from media.models import Scene, SourceVideo, _source_upload_to
from media.probe import MediaRejected, probe_file

HASH_CHUNK_BYTES = 1 << 20


class DuplicateVideo(ValueError):
    """The same bytes were imported before; ``existing`` is that video."""

    def __init__(self, existing: SourceVideo):
        self.existing = existing
        super().__init__(
            f"this file was already imported as “{existing.title}” (video {existing.pk}, "
            f"scene {existing.scene.slug}, SHA-256 {existing.sha256[:12]}…)"
        )


def file_sha256(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(HASH_CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def video_import(
    *,
    path: str | os.PathLike,
    scene: Scene,
    title: str | None = None,
    user=None,
    progress: Callable[[float], None] | None = None,
) -> SourceVideo:
    """Probe ``path``, copy it into storage under its SHA-256 and create its SourceVideo row.

    Raises DuplicateVideo for bytes already imported and MediaRejected for anything that is not
    an acceptable video. On any failure neither a row nor a stored file is left behind.
    ``progress`` receives the share of the video indexed so far (see ``probe_file``).
    """
    path = Path(path)
    if not path.is_file():
        raise MediaRejected(f"{path.name}: no such file")
    sha256 = file_sha256(path)
    existing = SourceVideo.objects.select_related("scene").filter(sha256=sha256).first()
    if existing is not None:
        raise DuplicateVideo(existing)
    probe = probe_file(path, progress=progress)

    video = SourceVideo(
        scene=scene,
        title=(title or path.name)[:255],
        sha256=sha256,
        size_bytes=path.stat().st_size,
        container=probe.container[:100],
        mime_type=probe.mime_type,
        codec=probe.codec[:50],
        width=probe.width,
        height=probe.height,
        rotation=probe.rotation,
        fps_num=probe.fps.numerator,
        fps_den=probe.fps.denominator,
        is_vfr=probe.is_vfr,
        has_audio=probe.has_audio,
        audio_codec=probe.audio.codec[:50] if probe.audio else "",
        audio_sample_rate=probe.audio.rate if probe.audio else None,
        audio_channels=probe.audio.channels if probe.audio else None,
        duration_us=probe.duration_us,
        origin_us=probe.origin_us,
        imported_by=user if user is not None and user.is_authenticated else None,
    )
    video.set_frame_times_us(probe.frame_times_us)
    video.set_keyframe_times_us(probe.keyframe_times_us)
    name = _source_upload_to(video, path.name)

    stored_here = False
    try:
        with transaction.atomic():
            # Content-addressed: a file already at this name holds these very bytes (left by an
            # import whose row insert failed), so it is reused rather than copied again.
            if not default_storage.exists(name):
                with open(path, "rb") as handle:
                    saved = default_storage.save(name, File(handle))
                stored_here = True
                if saved != name:  # a concurrent import won the name; keep only theirs
                    default_storage.delete(saved)
                    stored_here = False
            video.file.name = name
            video.full_clean(exclude=["frame_times", "keyframe_times"])
            video.save()
    except IntegrityError:
        if stored_here:
            default_storage.delete(name)
        existing = SourceVideo.objects.select_related("scene").filter(sha256=sha256).first()
        if existing is not None:
            raise DuplicateVideo(existing) from None
        raise
    except BaseException:
        if stored_here:
            default_storage.delete(name)
        raise
    return video

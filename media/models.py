"""Source videos and their scenes. This app knows times, files and ffmpeg, never labels."""

from __future__ import annotations

import numpy as np
from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import F, Q, Value
from django.db.models.functions import Concat, Length
from django.db.models.lookups import Exact

from media.timebase import decode_frame_times, encode_frame_times
from studio.leases import Leased


class Scene(models.Model):
    class Setting(models.TextChoices):
        INDOOR = "indoor", "Indoor"
        OUTDOOR = "outdoor", "Outdoor"

    slug = models.CharField(
        max_length=80,
        unique=True,
        validators=[
            RegexValidator(
                r"^(indoor|outdoor)/[a-z0-9]+(?:_[a-z0-9]+)*$",
                "Use setting/name in lower case, for example indoor/kitchen or outdoor/yard.",
            )
        ],
        help_text="setting/name, for example indoor/kitchen",
    )
    name = models.CharField(max_length=120, help_text="Display name, for example Kitchen")
    setting = models.CharField(max_length=10, choices=Setting.choices)

    class Meta:
        ordering = ["slug"]
        constraints = [
            models.CheckConstraint(
                condition=Q(setting__in=["indoor", "outdoor"]), name="scene_setting_valid"
            ),
            models.CheckConstraint(
                condition=Q(slug__startswith=Concat(F("setting"), Value("/"))),
                name="scene_slug_starts_with_setting",
            ),
        ]

    def __str__(self) -> str:
        return self.slug


def _source_upload_to(instance: SourceVideo, filename: str) -> str:
    # Content-addressed: the same bytes always land at the same path.
    return f"sources/{instance.sha256[:2]}/{instance.sha256}{instance.extension}"


class SourceVideo(models.Model):
    """One long recording. Every time about it is an integer of microseconds (media.timebase)."""

    class Status(models.TextChoices):
        READY = "ready", "Ready"
        DISABLED = "disabled", "Disabled"

    scene = models.ForeignKey(Scene, on_delete=models.PROTECT, related_name="videos")
    title = models.CharField(max_length=255, help_text="Original file name or a short label")
    file = models.FileField(upload_to=_source_upload_to, max_length=255)
    sha256 = models.CharField(max_length=64, unique=True)
    size_bytes = models.BigIntegerField()
    container = models.CharField(max_length=100, help_text="Demuxer chosen by the probe")
    mime_type = models.CharField(max_length=50, default="video/mp4")
    codec = models.CharField(max_length=50)
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    rotation = models.SmallIntegerField(default=0, help_text="Display rotation in degrees")
    fps_num = models.PositiveIntegerField(help_text="Nominal frame rate numerator")
    fps_den = models.PositiveIntegerField(default=1, help_text="Nominal frame rate denominator")
    is_vfr = models.BooleanField(default=False, help_text="Variable frame rate")
    has_audio = models.BooleanField(default=False)
    audio_codec = models.CharField(
        max_length=50, blank=True, help_text="Codec of the first audio stream, if any"
    )
    audio_sample_rate = models.PositiveIntegerField(
        null=True, blank=True, help_text="Samples per second of the first audio stream"
    )
    audio_channels = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Channels of the first audio stream"
    )
    duration_us = models.BigIntegerField()
    frame_count = models.PositiveIntegerField()
    frame_times = models.BinaryField(help_text="Presentation time of every frame (compressed)")
    keyframe_times = models.BinaryField(
        default=b"", help_text="Times of the keyframes (compressed); renderers seek to these"
    )
    origin_us = models.BigIntegerField(
        default=0,
        help_text="Time of the first decoded frame on the file's own timeline; frame times are "
        "relative to it",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.READY)
    created_at = models.DateTimeField(auto_now_add=True)
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["scene__slug", "title", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Exact(Length("sha256"), 64),
                name="sourcevideo_sha256_length",
            ),
            models.CheckConstraint(
                condition=Q(width__gt=0, height__gt=0), name="sourcevideo_size_positive"
            ),
            models.CheckConstraint(
                condition=Q(rotation__in=[0, 90, 180, 270]), name="sourcevideo_rotation_valid"
            ),
            models.CheckConstraint(
                condition=Q(fps_num__gt=0, fps_den__gt=0), name="sourcevideo_fps_positive"
            ),
            models.CheckConstraint(
                condition=Q(duration_us__gt=0, frame_count__gt=0),
                name="sourcevideo_duration_positive",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["ready", "disabled"]), name="sourcevideo_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def extension(self) -> str:
        return {
            "video/mp4": ".mp4",
            "video/quicktime": ".mov",
            "video/x-matroska": ".mkv",
            "video/webm": ".webm",
            "video/x-msvideo": ".avi",
        }.get(self.mime_type, ".bin")

    @property
    def demuxer(self) -> str:
        """The ffmpeg demuxer pinned for this file (decided by the probe at import)."""
        return {
            "video/mp4": "mov",
            "video/quicktime": "mov",
            "video/x-matroska": "matroska",
            "video/webm": "matroska",
            "video/x-msvideo": "avi",
        }[self.mime_type]

    @property
    def fps(self) -> float:
        return self.fps_num / self.fps_den

    @property
    def display_size(self) -> tuple[int, int]:
        """Width and height as shown, after rotation."""
        return (
            (self.height, self.width) if self.rotation in (90, 270) else (self.width, self.height)
        )

    def frame_times_us(self) -> np.ndarray:
        return decode_frame_times(self.frame_times)

    def set_frame_times_us(self, times_us) -> None:
        self.frame_times = encode_frame_times(times_us)
        self.frame_count = len(times_us)

    def keyframe_times_us(self) -> np.ndarray:
        # Rows made without a probe have no keyframe list; the first frame is always one.
        if not self.keyframe_times:
            return np.zeros(1, dtype=np.int64)
        return decode_frame_times(self.keyframe_times)

    def set_keyframe_times_us(self, times_us) -> None:
        self.keyframe_times = encode_frame_times(times_us)


class RenderedMedia(Leased):
    """One rendered medium: a clip, a frame set or sound alone, keyed by the SHA-256 of everything
    that determines its bytes (source, frames, order, profile, renderer version).

    Status moves pending → rendering → ready (or failed). Only a verified output is ever ready;
    a worker that dies mid-render leaves the row in ``rendering`` with a lease that runs out, and
    the lease sweeper queues it again (``studio/leases.py``).
    """

    class Kind(models.TextChoices):
        CLIP = "clip", "Clip (MP4)"
        FRAMES = "frames", "Frame set (PNG)"
        AUDIO = "audio", "Sound (WAV/FLAC)"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RENDERING = "rendering", "Rendering"
        READY = "ready", "Ready"
        FAILED = "failed", "Failed"

    key = models.CharField(max_length=64, unique=True)
    video = models.ForeignKey(SourceVideo, on_delete=models.PROTECT, related_name="renders")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    profile = models.CharField(max_length=40)
    spec = models.JSONField(help_text="Everything the renderer needs; the key is its hash")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    path = models.CharField(
        max_length=255, blank=True, help_text="Storage name of the clip or frame-set folder"
    )
    mime_type = models.CharField(max_length=50, blank=True)
    size_bytes = models.BigIntegerField(null=True, blank=True)
    frame_count = models.PositiveIntegerField(null=True, blank=True)
    source_times_us = models.JSONField(
        default=list, blank=True, help_text="Source time of every output frame, output order"
    )
    output_times_us = models.JSONField(
        default=list, blank=True, help_text="Presentation time of every clip frame in the clip"
    )
    duration_us = models.BigIntegerField(null=True, blank=True)
    audio_rate = models.PositiveIntegerField(
        null=True, blank=True, help_text="Samples per second of the sound, as decoded"
    )
    audio_channels = models.PositiveSmallIntegerField(null=True, blank=True)
    audio_samples = models.BigIntegerField(
        null=True, blank=True, help_text="Samples of the sound (per channel), as decoded"
    )
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    ready_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "rendered medium"
        verbose_name_plural = "rendered media"
        ordering = ["-created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=["clip", "frames", "audio"]), name="rendered_kind_valid"
            ),
            models.CheckConstraint(
                condition=Q(status__in=["pending", "rendering", "ready", "failed"]),
                name="rendered_status_valid",
            ),
            models.CheckConstraint(condition=Exact(Length("key"), 64), name="rendered_key_length"),
            # Ready means verified: a file, its size and its frame count (sound: its sample
            # count) are known.
            models.CheckConstraint(
                condition=~Q(status="ready")
                | Q(path__gt="", size_bytes__gt=0, frame_count__gt=0, ready_at__isnull=False)
                | Q(
                    path__gt="",
                    size_bytes__gt=0,
                    kind="audio",
                    audio_samples__gt=0,
                    ready_at__isnull=False,
                ),
                name="rendered_ready_is_complete",
            ),
        ]
        indexes = [
            # Re-run and progress queries: WHERE status IN (...) ORDER BY id
            models.Index(fields=["status", "id"], name="rendered_status_idx"),
            # The lease sweeper: WHERE status = 'rendering' AND lease_expires_at < now
            models.Index(fields=["status", "lease_expires_at"], name="rendered_lease_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.key[:12]} ({self.status})"


class RenderBatch(models.Model):
    """A set of (subject, condition, profile) renders started together, with progress."""

    label = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        verbose_name_plural = "render batches"
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.label or f"Render batch {self.pk}"


class RenderBatchItem(models.Model):
    """One requested medium of a batch. ``subject`` is the caller's reference (for example a
    step's uid); media knows nothing more about it. ``error`` says why a window could not be
    built; a render failure is on the medium."""

    batch = models.ForeignKey(RenderBatch, on_delete=models.CASCADE, related_name="items")
    subject = models.CharField(max_length=200)
    condition = models.CharField(max_length=40)
    profile = models.CharField(max_length=40)
    media = models.ForeignKey(
        RenderedMedia, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    note = models.CharField(max_length=200, blank=True, help_text="Window fallback, if any")
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["batch_id", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["batch", "subject", "condition", "profile"], name="batch_item_unique"
            ),
            models.CheckConstraint(
                condition=Q(media__isnull=False) | ~Q(error=""), name="batch_item_media_or_error"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.subject} / {self.condition} / {self.profile}"


class MediaGrant(models.Model):
    """Permission for one user to fetch one medium until a time, behind an opaque token.

    Only the SHA-256 of the token is stored, so the database never holds a usable URL. The caller
    that mints a grant has already decided that the user may see the item (media cannot know).
    """

    token_hash = models.CharField(max_length=64, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    media = models.ForeignKey(
        RenderedMedia, null=True, blank=True, on_delete=models.CASCADE, related_name="grants"
    )
    source = models.ForeignKey(
        SourceVideo, null=True, blank=True, on_delete=models.CASCADE, related_name="grants"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(media__isnull=False, source__isnull=True)
                | Q(media__isnull=True, source__isnull=False),
                name="grant_exactly_one_target",
            ),
            models.CheckConstraint(
                condition=Exact(Length("token_hash"), 64), name="grant_token_hash_length"
            ),
        ]

    def __str__(self) -> str:
        return f"grant {self.pk} for user {self.user_id}"


class VideoImport(Leased):
    """An uploaded file on its way to becoming a SourceVideo: probing a long file takes a while,
    so the web request only stages the bytes and a media worker probes them (``media.imports``).

    Status moves pending → probing → done (with its video) or failed (with the reason). The
    worker holds a lease while it probes; if it dies, the lease sweeper queues the import again
    (``studio/leases.py``). The staged upload is deleted once the import is done or failed.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        PROBING = "probing", "Probing"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    scene = models.ForeignKey(Scene, on_delete=models.PROTECT, related_name="+")
    title = models.CharField(max_length=255)
    upload = models.CharField(
        max_length=255, help_text="Storage name of the staged upload until the import finishes"
    )
    size_bytes = models.BigIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    progress = models.FloatField(default=0.0, help_text="Share of the video indexed, 0 to 1")
    video = models.ForeignKey(
        SourceVideo, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["pending", "probing", "done", "failed"]),
                name="videoimport_status_valid",
            ),
            models.CheckConstraint(
                condition=~Q(status="done") | Q(video__isnull=False),
                name="videoimport_done_has_video",
            ),
            models.CheckConstraint(
                condition=~Q(status="failed") | ~Q(error=""),
                name="videoimport_failed_has_reason",
            ),
            models.CheckConstraint(
                condition=Q(progress__gte=0, progress__lte=1), name="videoimport_progress_share"
            ),
        ]
        indexes = [
            # The lease sweeper: WHERE status = 'probing' AND lease_expires_at < now
            models.Index(fields=["status", "lease_expires_at"], name="videoimport_lease_idx"),
        ]

    def __str__(self) -> str:
        return f"import of {self.title}"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)

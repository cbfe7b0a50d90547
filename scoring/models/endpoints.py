"""A model endpoint: where an OpenAI-compatible API lives and how to talk to it.

The API key is never stored: ``api_key_env`` names the environment variable of the worker that
holds it (empty for servers that take none, such as the stand-in or a local vLLM)."""

from __future__ import annotations

from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Q

from annotation.models.releases import NAME_VALIDATOR
from studio.vocabulary import vocabulary

ENV_NAME_VALIDATOR = RegexValidator(
    r"^[A-Z_][A-Z0-9_]{0,99}$", "An environment variable name, for example OPENAI_API_KEY."
)


class MediaInterface(models.TextChoices):
    FRAMES = "frames", "Frames: N images as data URLs"
    VIDEO_BASE64 = "video_base64", "Video: the clip as a base64 data URL"
    VIDEO_URL = "video_url", "Video: a short-lived URL served by this instance"


vocabulary("media_interface", MediaInterface, title="Media")


class Endpoint(models.Model):
    name = models.CharField(max_length=80, unique=True, validators=[NAME_VALIDATOR])
    base_url = models.CharField(
        max_length=500, help_text="Up to /v1, for example https://api.example.com/v1"
    )
    model = models.CharField(max_length=200, help_text="The model name sent with every request")
    api_key_env = models.CharField(
        max_length=100,
        blank=True,
        validators=[ENV_NAME_VALIDATOR],
        help_text="Name of the environment variable holding the key (the key is never stored)",
    )
    media = models.CharField(
        max_length=20, choices=MediaInterface.choices, default=MediaInterface.FRAMES
    )
    frames = models.PositiveSmallIntegerField(
        default=16, help_text="Images per request for the frames interface"
    )
    json_schema = models.BooleanField(
        default=False, help_text="The API accepts response_format with a JSON schema"
    )
    open_weights = models.BooleanField(default=False)
    max_concurrency = models.PositiveSmallIntegerField(
        default=4, help_text="Requests in flight at once, across every worker process"
    )
    rpm = models.PositiveIntegerField(null=True, blank=True, help_text="Requests per minute")
    tpm = models.PositiveIntegerField(null=True, blank=True, help_text="Tokens per minute")
    max_attempts = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="HTTP attempts per call (default MODEL_MAX_ATTEMPTS)"
    )
    timeout_seconds = models.PositiveSmallIntegerField(default=120)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(media__in=MediaInterface.values), name="endpoint_media_valid"
            ),
            models.CheckConstraint(
                condition=Q(frames__gte=1) & Q(frames__lte=64), name="endpoint_frames_range"
            ),
            models.CheckConstraint(
                condition=Q(max_concurrency__gte=1) & Q(max_concurrency__lte=1024),
                name="endpoint_concurrency_range",
            ),
            models.CheckConstraint(
                condition=Q(max_attempts__isnull=True)
                | (Q(max_attempts__gte=1) & Q(max_attempts__lte=20)),
                name="endpoint_attempts_range",
            ),
            models.CheckConstraint(
                condition=Q(timeout_seconds__gte=1), name="endpoint_timeout_positive"
            ),
            models.CheckConstraint(
                condition=Q(rpm__isnull=True) | Q(rpm__gte=1), name="endpoint_rpm_positive"
            ),
            models.CheckConstraint(
                condition=Q(tpm__isnull=True) | Q(tpm__gte=1), name="endpoint_tpm_positive"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def attempts_allowed(self) -> int:
        from django.conf import settings

        return self.max_attempts or settings.MODEL_MAX_ATTEMPTS

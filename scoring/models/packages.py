"""Prompt packages: system prompt, user template, output schema, sampling and purpose, identified
by the SHA-256 of their canonical bytes (docs/models.md). A row is never changed: a new version of
a package is a new row with the same name."""

from __future__ import annotations

import json

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Length
from django.db.models.lookups import Exact

from annotation.models.releases import NAME_VALIDATOR
from studio.vocabulary import vocabulary


class Purpose(models.TextChoices):
    PREDICTION = "prediction", "Prediction (local, procedural, next)"
    REFERENCE_JUDGE = "reference_judge", "Reference-based judge"
    VIDEO_JUDGE = "video_judge", "Reference-free video judge"
    BLIND_RATER = "blind_rater", "Blind LLM rater"
    QA_JUDGE = "qa_judge", "QA judge"
    QA_PREDICTION = "qa_prediction", "QA prediction (one answer per turn)"


vocabulary("purpose", Purpose, title="Purpose")


class PromptPackage(models.Model):
    name = models.CharField(max_length=80, validators=[NAME_VALIDATOR])
    version = models.PositiveIntegerField()
    purpose = models.CharField(max_length=20, choices=Purpose.choices)
    sha256 = models.CharField(max_length=64, unique=True)
    content = models.TextField(
        help_text="The canonical JSON of the package: exactly the hashed bytes"
    )
    source_path = models.CharField(
        max_length=500, blank=True, help_text="The file it was registered from"
    )
    builtin = models.BooleanField(default=False, help_text="Shipped with Intent Studio")
    registered_at = models.DateTimeField(auto_now_add=True)
    registered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["name", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["name", "version"], name="package_unique_version"),
            models.CheckConstraint(condition=Q(version__gte=1), name="package_version_positive"),
            models.CheckConstraint(
                condition=Q(purpose__in=Purpose.values), name="package_purpose_valid"
            ),
            models.CheckConstraint(
                condition=Exact(Length("sha256"), 64), name="package_sha256_length"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} v{self.version} ({self.sha256[:12]})"

    def save(self, *args, **kwargs):
        if self.pk is not None and PromptPackage.objects.filter(pk=self.pk).exists():
            raise PermissionError("Prompt packages never change; register a new version.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionError("Prompt packages are never deleted: runs name them.")

    @property
    def data(self) -> dict:
        return json.loads(self.content)

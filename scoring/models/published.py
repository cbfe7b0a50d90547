"""Benchmarks imported from a published folder (``manage.py import_benchmark``)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Length
from django.db.models.lookups import Exact


class ImportedBenchmark(models.Model):
    """A published folder loaded into this instance: the release (and manifest) it holds, as
    frozen sets with their own hashes, and the description of what was published."""

    name = models.CharField(max_length=80, unique=True, help_text="The release or manifest name")
    kind = models.CharField(max_length=20, help_text="release, or the manifest's kind")
    release = models.ForeignKey("annotation.Release", on_delete=models.PROTECT, related_name="+")
    manifest = models.ForeignKey(
        "review.Manifest", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    manifest_sha256 = models.CharField(max_length=64)
    sample_list_sha256 = models.CharField(max_length=64)
    conditions = models.JSONField(default=list)
    description = models.JSONField(help_text="publish.json of the folder, as it was imported")
    sums_sha256 = models.CharField(
        max_length=64, help_text="SHA-256 of the folder's SHA256SUMS: every byte it held"
    )
    imported_at = models.DateTimeField(auto_now_add=True)
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        verbose_name = "imported benchmark"
        constraints = [
            models.CheckConstraint(
                condition=Exact(Length("manifest_sha256"), 64), name="imported_manifest_sha256"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"


class ImportedMedium(models.Model):
    """One media file of an imported benchmark, stored by its content under
    ``published/<sha[:2]>/<sha>.<ext>``: which step, column and place it fills."""

    benchmark = models.ForeignKey(ImportedBenchmark, on_delete=models.CASCADE, related_name="media")
    sample_id = models.UUIDField()
    column = models.CharField(max_length=80, help_text="media_<condition>_clip or _frames")
    position = models.PositiveSmallIntegerField(help_text="0 for a clip, the frame's place")
    sha256 = models.CharField(max_length=64)
    path = models.CharField(max_length=255, help_text="Relative to MEDIA_ROOT")
    size_bytes = models.BigIntegerField()

    class Meta:
        verbose_name = "imported medium"
        constraints = [
            models.UniqueConstraint(
                fields=["benchmark", "sample_id", "column", "position"],
                name="imported_medium_unique_place",
            ),
            models.CheckConstraint(
                condition=Q(size_bytes__gte=0), name="imported_medium_size_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.column} {self.position} of {self.sample_id}"

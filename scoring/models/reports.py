"""Computed reports, kept by the SHA-256 of their inputs: the same inputs are answered with the
same bytes; a changed input (a run finishing, a rerun, another seed) makes another key."""

from __future__ import annotations

from django.db import models


class ReportCache(models.Model):
    kind = models.CharField(max_length=20, help_text="study, leaderboard")
    subject = models.CharField(max_length=200, help_text="The study or manifest it is about")
    inputs_sha256 = models.CharField(max_length=64, unique=True)
    body = models.TextField(help_text="The report as JSON, exactly as served")
    computed_at = models.DateTimeField()

    class Meta:
        ordering = ["-computed_at", "-id"]
        indexes = [models.Index(fields=["kind", "subject"], name="reportcache_subject_idx")]

    def __str__(self) -> str:
        return f"{self.kind}:{self.subject}:{self.inputs_sha256[:12]}"

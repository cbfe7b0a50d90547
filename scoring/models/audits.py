"""Shortcut and modality audits of QA runs (scoring/qa/audits.py, docs/qa-evaluation.md,
"Audits"): which runs were audited, with which judge runs, and what the rules found. Written once
when the audit is made from finished, judged runs, and never changed: its flags stay the same
when later runs or judges come."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotation.models.releases import NAME_VALIDATOR


class QaAudit(models.Model):
    name = models.CharField(max_length=80, unique=True, validators=[NAME_VALIDATOR])
    manifest = models.ForeignKey("review.Manifest", on_delete=models.PROTECT, related_name="+")
    runs = models.ManyToManyField(
        "scoring.Run", related_name="qa_audits", help_text="The QA runs and judge runs it read"
    )
    inputs = models.JSONField(
        help_text="Per audited run: model, condition, run and judge run names, ids and hashes"
    )
    result = models.JSONField(help_text="Per group: its votes and flags; counts per flag")
    filter_sha256 = models.CharField(max_length=64, help_text="SHA-256 of the filter list")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name

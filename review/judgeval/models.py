"""The judge-validation triplets of a frozen ``judge_validation`` manifest.

A triplet is a step's reference labels (the manifest sample) with one model prediction: each
step of the design has two, one from a closed model and one from an open model. The rows are
written with the manifest in one transaction (``review.judgeval.services.judgeval_freeze``) from
plain data the scoring side hands over (review never reads runs) and never change afterwards.
The run name is kept for the report; no rater page or answer ever shows it.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class TripletQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise PermissionError("Judge-validation triplets never change; freeze a new manifest.")

    def delete(self):
        raise PermissionError("Judge-validation triplets are never deleted.")


class JudgeTriplet(models.Model):
    class Slot(models.TextChoices):
        CLOSED = "closed", "Closed model"
        OPEN = "open", "Open model"

    manifest = models.ForeignKey(
        "review.Manifest", on_delete=models.PROTECT, related_name="judge_triplets"
    )
    sample = models.ForeignKey(
        "review.ManifestSample", on_delete=models.PROTECT, related_name="judge_triplets"
    )
    slot = models.CharField(max_length=10, choices=Slot.choices)
    run_name = models.CharField(max_length=80, help_text="The prediction run (never shown)")
    local = models.TextField(blank=True)
    procedural = models.TextField(blank=True)
    next = models.TextField(blank=True)

    objects = TripletQuerySet.as_manager()

    class Meta:
        ordering = ["manifest_id", "sample_id", "slot"]
        constraints = [
            models.UniqueConstraint(fields=["sample", "slot"], name="judgetriplet_unique_slot"),
            models.CheckConstraint(
                condition=Q(slot__in=["closed", "open"]), name="judgetriplet_slot_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.sample_id}:{self.slot}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise PermissionError("Judge-validation triplets never change.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionError("Judge-validation triplets are never deleted.")

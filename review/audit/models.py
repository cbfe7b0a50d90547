"""What the audit stores beside the campaign's own records (review/campaigns): adjudicated labels,
kept apart from the reviewers' raw decisions, and the typed corrections made after adjudication.

Both are append-only: a row is never edited or deleted. An adjudicator who changes a label writes
a new row that supersedes the old one (the current label is the row nobody superseded).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from review.audit.criteria import (
    ADJUDICATION_LABELS,
    CORRECTION_CODES,
    CRITERION_IDS,
    WINDOW_NAMES,
)

# What an adjudication decides: an audit criterion, or a boundary audit's window.
ADJUDICATION_KEYS = CRITERION_IDS + WINDOW_NAMES


class ImmutableError(PermissionError):
    """An adjudication or correction was about to change or disappear."""


class _AppendOnlyQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise ImmutableError("Audit records never change; write a new one that supersedes.")

    def delete(self):
        raise ImmutableError("Audit records are never deleted.")


class _AppendOnly(models.Model):
    objects = _AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise ImmutableError("Audit records never change; write a new one that supersedes.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ImmutableError("Audit records are never deleted.")


class Adjudication(_AppendOnly):
    """The adjudicated label of one (item, criterion) that the reviewers left unresolved; in a
    boundary audit the "criterion" is the window (early, official, outcome_visible,
    next_visible)."""

    campaign = models.ForeignKey(
        "review.Campaign", on_delete=models.PROTECT, related_name="adjudications"
    )
    item = models.ForeignKey(
        "review.CampaignItem", on_delete=models.PROTECT, related_name="adjudications"
    )
    criterion = models.CharField(
        max_length=20,
        choices=[(c, c) for c in ADJUDICATION_KEYS],
        help_text="The criterion (audit) or window (boundary audit)",
    )
    label = models.CharField(max_length=10, choices=[(v, v) for v in ADJUDICATION_LABELS])
    comment = models.TextField(blank=True)
    adjudicator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField()
    supersedes = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="superseded_by"
    )
    imported = models.BooleanField(
        default=False, help_text="Loaded by audit_import_decisions or boundary_import_decisions"
    )

    class Meta:
        ordering = ["item_id", "criterion", "created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(criterion__in=ADJUDICATION_KEYS), name="adjudication_criterion_valid"
            ),
            models.CheckConstraint(
                condition=Q(label__in=ADJUDICATION_LABELS), name="adjudication_label_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.item_id}:{self.criterion}={self.label}"


class Correction(_AppendOnly):
    """One typed correction (paper table 9) of an audited step, made through
    ``annotation.services``; ``revision`` is the step revision it wrote (its reason names the
    campaign and item)."""

    campaign = models.ForeignKey(
        "review.Campaign", on_delete=models.PROTECT, related_name="corrections"
    )
    item = models.ForeignKey(
        "review.CampaignItem", on_delete=models.PROTECT, related_name="corrections"
    )
    kind = models.CharField(max_length=20, choices=[(c, c) for c in CORRECTION_CODES])
    note = models.TextField(blank=True)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField()
    revision = models.ForeignKey(
        "annotation.StepRevision", on_delete=models.PROTECT, related_name="+"
    )
    new_step = models.ForeignKey(
        "annotation.MicroStep",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The second part of a split",
    )

    class Meta:
        ordering = ["item_id", "created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=CORRECTION_CODES), name="correction_kind_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.item_id}:{self.kind}"

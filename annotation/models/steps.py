"""Micro-steps, their labels and their revisions.

Times are integer microseconds on the source's presentation timeline (see media.timebase):
``start`` is the first frame of the step, ``cutoff`` the first frame withheld from a model
(the released observation is ``[start, cutoff)``), ``outcome`` the first frame where the outcome is
visible, ``end`` the first frame after the step. The database holds every ordering rule; the
no-overlap rule is an exclusion constraint on PostgreSQL (migration 0002) and a service check
everywhere.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from media.timebase import MAX_STEP_US
from studio.display import clock
from studio.vocabulary import vocabulary

TIME_FIELDS = ("start_us", "cutoff_us", "outcome_us", "end_us")
LABEL_FIELDS = ("local_intent", "procedural_intent", "next_step", "plausible_next_steps")
# Breakdown tags (annotation/tags.py): edited with the labels, hidden like them.
TAG_FIELDS = ("tags",)
# The three judged dimensions of a step's labels and their mean, as scores, ratings and
# reports name them (review and scoring read this one vocabulary).
DIMENSIONS_VOCABULARY = vocabulary(
    "dimension",
    {
        "local": "Local intent",
        "procedural": "Procedural intent",
        "next": "Next step",
        "overall": "Overall",
    },
    title="Dimension",
)
# How every page names a step's fields (the history page, the workspace, its overlays).
FIELD_NAMES = {
    "start_us": "Start",
    "cutoff_us": "Cutoff",
    "outcome_us": "Outcome",
    "end_us": "End",
    "local_intent": "Local intent",
    "procedural_intent": "Procedural intent",
    "next_step": "Next step",
    "plausible_next_steps": "Plausible next steps",
    "tags": "Tags",
    "status": "Status",
}
vocabulary("step_field", FIELD_NAMES, title="Field")


class NoDeleteQuerySet(models.QuerySet):
    def delete(self):
        raise PermissionError("Annotation rows are never deleted; retract the step instead.")


class MicroStep(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        RETRACTED = "retracted", "Retracted"

    uid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    video = models.ForeignKey("media.SourceVideo", on_delete=models.PROTECT, related_name="steps")
    position = models.PositiveIntegerField(
        default=0, help_text="Order among the video's active steps (0-based), kept by the services"
    )
    start_us = models.BigIntegerField()
    cutoff_us = models.BigIntegerField()
    outcome_us = models.BigIntegerField()
    end_us = models.BigIntegerField()
    local_intent = models.TextField(blank=True)
    procedural_intent = models.TextField(blank=True)
    next_step = models.TextField(blank=True)
    plausible_next_steps = models.JSONField(default=list, blank=True)
    tags = models.JSONField(
        default=list,
        blank=True,
        help_text="Breakdown tags: labels or key:value, sorted (annotation/tags.py)",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    version = models.PositiveIntegerField(default=1, help_text="Optimistic-concurrency version")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    objects = NoDeleteQuerySet.as_manager()

    class Meta:
        verbose_name = "micro-step"
        ordering = ["video_id", "start_us", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(start_us__gte=0), name="step_start_not_negative"),
            models.CheckConstraint(
                condition=Q(start_us__lt=F("cutoff_us")), name="step_start_before_cutoff"
            ),
            models.CheckConstraint(
                condition=Q(cutoff_us__lte=F("outcome_us")), name="step_cutoff_not_after_outcome"
            ),
            models.CheckConstraint(
                condition=Q(outcome_us__lte=F("end_us")), name="step_outcome_not_after_end"
            ),
            models.CheckConstraint(
                condition=Q(end_us__lte=F("start_us") + MAX_STEP_US), name="step_at_most_10s"
            ),
            models.CheckConstraint(
                condition=Q(status__in=["active", "retracted"]), name="step_status_valid"
            ),
            models.CheckConstraint(condition=Q(version__gte=1), name="step_version_positive"),
        ]
        indexes = [
            # Workspace load: WHERE video_id = ? ORDER BY start_us
            models.Index(fields=["video", "start_us"], name="step_video_start_idx"),
        ]

    def __str__(self) -> str:
        # The admin's title of the row: its video's id, its number, its observation as timecodes
        # (display_name names the video too, at the cost of a query).
        window = f"[{clock(self.start_us)}, {clock(self.cutoff_us)})"
        return f"video {self.video_id}, step {self.position + 1} {window}"

    def delete(self, *args, **kwargs):
        raise PermissionError("Annotation rows are never deleted; retract the step instead.")

    @property
    def display_name(self) -> str:
        """How pages name the step: "Step 6 of kitchen-tea.mp4" (positions are 0-based)."""
        return f"Step {self.position + 1} of {self.video.title}"

    @property
    def duration_us(self) -> int:
        return self.end_us - self.start_us

    def snapshot(self) -> dict:
        """The full editable state, as stored in revisions and compared on concurrent saves."""
        return {
            "start_us": self.start_us,
            "cutoff_us": self.cutoff_us,
            "outcome_us": self.outcome_us,
            "end_us": self.end_us,
            "local_intent": self.local_intent,
            "procedural_intent": self.procedural_intent,
            "next_step": self.next_step,
            "plausible_next_steps": list(self.plausible_next_steps),
            "tags": list(self.tags),
            "status": self.status,
        }


class StepRevision(models.Model):
    """One change to a step: who, when, why, and the full values before and after."""

    class Action(models.TextChoices):
        CREATE = "create", "Created"
        UPDATE = "update", "Edited"
        RETRACT = "retract", "Retracted"
        RESTORE = "restore", "Restored"
        SPLIT = "split", "Split"
        MERGE = "merge", "Merged"
        IMPORT = "import", "Imported"
        CORRECT = "correct", "Corrected"

    step = models.ForeignKey(MicroStep, on_delete=models.PROTECT, related_name="revisions")
    version = models.PositiveIntegerField(help_text="The step's version after this change")
    action = models.CharField(max_length=10, choices=Action.choices)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField()
    reason = models.TextField(blank=True)
    previous = models.JSONField(null=True, blank=True, help_text="Full values before the change")
    values = models.JSONField(help_text="Full values after the change")

    objects = NoDeleteQuerySet.as_manager()

    class Meta:
        ordering = ["step_id", "version"]
        constraints = [
            models.UniqueConstraint(fields=["step", "version"], name="revision_unique_version"),
            models.CheckConstraint(condition=Q(version__gte=1), name="revision_version_positive"),
            models.CheckConstraint(
                condition=Q(previous__isnull=True) | ~Q(action="create"),
                name="revision_create_has_no_previous",
            ),
        ]

    def __str__(self) -> str:
        return f"step {self.step_id} v{self.version} ({self.action})"

    def delete(self, *args, **kwargs):
        raise PermissionError("Revisions are never deleted.")


vocabulary("step_status", MicroStep.Status, title="Status")
vocabulary("revision_action", StepRevision.Action, title="Change")

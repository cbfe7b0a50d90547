"""Controlled studies: models (endpoints) x observation conditions on one frozen set of steps,
judged by one judge, with the contrasts to report. A study's definition is fixed when it is
created; its runs are ordinary prediction and judge runs, linked here by (condition, endpoint)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotation.models.releases import NAME_VALIDATOR
from studio.vocabulary import vocabulary


class StudyTemplate(models.TextChoices):
    BOUNDARY = "boundary", "Boundary (appendix E)"
    EVIDENCE = "evidence", "Evidence and shortcuts (appendix F)"
    HISTORY = "history", "Historical context (appendix G)"
    CUSTOM = "custom", "Custom"


vocabulary("study_template", StudyTemplate, title="Template")


class Study(models.Model):
    name = models.CharField(max_length=40, unique=True, validators=[NAME_VALIDATOR])
    template = models.CharField(max_length=20, choices=StudyTemplate.choices)
    release = models.ForeignKey("annotation.Release", on_delete=models.PROTECT, related_name="+")
    manifest = models.ForeignKey(
        "review.Manifest",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Empty: every step of the release",
    )
    conditions = models.JSONField(help_text="Observation conditions, in report order")
    endpoints = models.ManyToManyField(
        "scoring.Endpoint", through="StudyModel", related_name="studies"
    )
    package = models.ForeignKey("scoring.PromptPackage", on_delete=models.PROTECT, related_name="+")
    judge_endpoint = models.ForeignKey(
        "scoring.Endpoint", on_delete=models.PROTECT, related_name="+"
    )
    judge_package = models.ForeignKey(
        "scoring.PromptPackage", on_delete=models.PROTECT, related_name="+"
    )
    judge_unit = models.CharField(max_length=10, default="candidate")
    judge_seed = models.BigIntegerField(default=0)
    contrasts = models.JSONField(help_text="[{name, a, b, dimensions?}]: a - b per step")
    common_set = models.CharField(max_length=10, default="pair")
    replicates = models.PositiveIntegerField(default=2000)
    bootstrap_seed = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        verbose_name_plural = "studies"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(template__in=StudyTemplate.values), name="study_template_valid"
            ),
            models.CheckConstraint(
                condition=Q(common_set__in=["pair", "study"]), name="study_common_set_valid"
            ),
            models.CheckConstraint(
                condition=Q(judge_unit__in=["candidate", "step"]), name="study_judge_unit_valid"
            ),
            models.CheckConstraint(
                condition=Q(replicates__gte=1), name="study_replicates_positive"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def models_in_order(self):
        return [m.endpoint for m in self.members.select_related("endpoint").order_by("position")]


class StudyModel(models.Model):
    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="members")
    endpoint = models.ForeignKey("scoring.Endpoint", on_delete=models.PROTECT, related_name="+")
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["study_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["study", "endpoint"], name="studymodel_unique"),
            models.UniqueConstraint(fields=["study", "position"], name="studymodel_position"),
        ]

    def __str__(self) -> str:
        return f"{self.study_id}:{self.endpoint_id}"


class StudyRun(models.Model):
    """A run of a study: the predictions of one model under one condition, or (no endpoint) the
    judge run of one condition."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="study_runs")
    condition = models.CharField(max_length=30)
    endpoint = models.ForeignKey(
        "scoring.Endpoint", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    run = models.ForeignKey("scoring.Run", on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["study_id", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "condition", "endpoint"],
                condition=Q(endpoint__isnull=False),
                name="studyrun_one_prediction_run",
            ),
            models.UniqueConstraint(
                fields=["study", "condition"],
                condition=Q(endpoint__isnull=True),
                name="studyrun_one_judge_run",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.study_id}:{self.condition}:{self.run_id}"

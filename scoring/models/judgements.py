"""Judgements: one per judged subject per judge run.

The subject is generic: a model prediction (an ok item of a prediction run), a QA answer, and
later a human answer. What the judge was shown is stored as it was sent (``candidate`` and
``reference``), so the cache key and the export never depend on rows that change later."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from scoring.models.runs import Outcome, Run, RunItem
from studio.vocabulary import vocabulary


class SubjectKind(models.TextChoices):
    PREDICTION = "prediction", "Model prediction"
    QA_ANSWER = "qa_answer", "QA answer"
    HUMAN_ANSWER = "human_answer", "Human baseline answer"


class MatchType(models.TextChoices):
    """How the judge matched a predicted next step."""

    OBSERVED = "observed", "matches the observed next step"
    PLAUSIBLE = "plausible", "matches a plausible next step"
    RELATED = "related", "related to the next step"
    NONE = "none", "no match"


vocabulary("subject_kind", SubjectKind, title="Subject")
vocabulary("match_type", MatchType, title="Next-step match")


class Judgement(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="judgements")
    item = models.ForeignKey(RunItem, on_delete=models.CASCADE, related_name="judgements")
    subject_kind = models.CharField(max_length=20)
    subject_key = models.CharField(max_length=200, help_text="Names the subject in its source")
    prediction = models.ForeignKey(
        RunItem,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="judged_in",
        help_text="The judged prediction, when the subject is one",
    )
    sample_id = models.UUIDField(null=True, blank=True)
    candidate_id = models.CharField(max_length=40, help_text="The anonymous id the judge saw")
    position = models.PositiveIntegerField(help_text="Place in the seeded shuffle")
    candidate = models.JSONField(help_text="The candidate's texts as sent")
    reference = models.JSONField(null=True, blank=True, help_text="The reference as sent")
    outcome = models.CharField(max_length=20, blank=True)
    # Reference judge and blind rater: 0-100.
    local = models.PositiveSmallIntegerField(null=True, blank=True)
    procedural = models.PositiveSmallIntegerField(null=True, blank=True)
    next = models.PositiveSmallIntegerField(null=True, blank=True)
    match_type = models.CharField(max_length=10, blank=True)
    band_consistent = models.BooleanField(
        null=True, blank=True, help_text="Next score inside its match type's band"
    )
    # Blind rater: one reason code per dimension.
    reasons = models.JSONField(null=True, blank=True)
    # Video judge: 0-4 (reported x25).
    gf = models.PositiveSmallIntegerField(null=True, blank=True)
    hic = models.PositiveSmallIntegerField(null=True, blank=True)
    tpc = models.PositiveSmallIntegerField(null=True, blank=True)
    npf = models.PositiveSmallIntegerField(null=True, blank=True)
    # QA judge.
    correct = models.BooleanField(null=True, blank=True)
    score = models.PositiveSmallIntegerField(null=True, blank=True)
    review = models.BooleanField(
        default=False, help_text="QA: the score contradicts the verdict; kept apart"
    )
    justification = models.TextField(blank=True)

    class Meta:
        ordering = ["run_id", "item_id", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "subject_kind", "subject_key"], name="judgement_unique_subject"
            ),
            models.CheckConstraint(
                condition=Q(outcome="") | Q(outcome__in=Outcome.values),
                name="judgement_outcome_valid",
            ),
            models.CheckConstraint(
                condition=Q(match_type="") | Q(match_type__in=MatchType.values),
                name="judgement_match_type_valid",
            ),
            # A judge failure is never a score.
            models.CheckConstraint(
                condition=Q(outcome="ok")
                | Q(
                    local__isnull=True,
                    procedural__isnull=True,
                    next__isnull=True,
                    gf__isnull=True,
                    hic__isnull=True,
                    tpc__isnull=True,
                    npf__isnull=True,
                    correct__isnull=True,
                    score__isnull=True,
                ),
                name="judgement_scores_only_when_ok",
            ),
            models.CheckConstraint(
                condition=(Q(local__isnull=True) | Q(local__lte=100))
                & (Q(procedural__isnull=True) | Q(procedural__lte=100))
                & (Q(next__isnull=True) | Q(next__lte=100)),
                name="judgement_scores_0_100",
            ),
            models.CheckConstraint(
                condition=(Q(gf__isnull=True) | Q(gf__lte=4))
                & (Q(hic__isnull=True) | Q(hic__lte=4))
                & (Q(tpc__isnull=True) | Q(tpc__lte=4))
                & (Q(npf__isnull=True) | Q(npf__lte=4)),
                name="judgement_diagnostics_0_4",
            ),
            models.CheckConstraint(
                condition=Q(score__isnull=True) | Q(score__lte=5), name="judgement_qa_score_0_5"
            ),
        ]
        indexes = [
            models.Index(fields=["run", "sample_id"], name="judgement_run_sample_idx"),
            # Leaderboards read a judge run's ok scores of predictions from this index alone
            # (an index-only scan on PostgreSQL; the rows themselves hold the texts sent).
            models.Index(
                fields=["run", "prediction"],
                include=["local", "procedural", "next", "gf", "hic", "tpc", "npf"],
                condition=Q(outcome="ok"),
                name="judgement_ok_scores_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.run_id}:{self.subject_kind}:{self.subject_key}"

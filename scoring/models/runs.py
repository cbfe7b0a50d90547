"""Runs and their items.

A run is one endpoint + package applied to a frozen set of steps: predictions under one
condition, or one of the four judges over the candidates of other runs. Each item is one model
call (one sample, one judged candidate, one step's candidates or one rater batch), claimed under a
lease (studio/leases.py), and ends in exactly one outcome. An item that is not ``ok`` holds no
prediction and no score; its raw response and every HTTP attempt stay for inspection."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotation.models.releases import NAME_VALIDATOR
from studio.leases import Leased
from studio.vocabulary import vocabulary


class RunKind(models.TextChoices):
    PREDICTION = "prediction", "Predictions"
    REFERENCE = "reference", "Reference-based judge"
    VIDEO = "video", "Reference-free video judge"
    RATER = "rater", "Blind LLM rater"
    QA = "qa", "QA judge"
    QA_PREDICTION = "qa_prediction", "QA predictions"


JUDGE_KINDS = (RunKind.REFERENCE, RunKind.VIDEO, RunKind.RATER, RunKind.QA)


class RunStatus(models.TextChoices):
    RUNNING = "running", "Running"
    FINISHED = "finished", "Finished"
    CANCELLED = "cancelled", "Cancelled"


class Outcome(models.TextChoices):
    OK = "ok", "ok"
    PARSE_FAILURE = "parse_failure", "parse failure"
    REFUSAL = "refusal", "refusal"
    API_ERROR = "api_error", "API error"


class ItemState(models.TextChoices):
    PENDING = "pending", "Pending"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    # A dialogue's later turn (QA runs): claimable only once the turn before it is answered.
    WAITING = "waiting", "Waiting for the turn before"
    # A later turn of a dialogue whose earlier turn failed: never sent, no outcome.
    NOT_ASKED = "not_asked", "Not asked"


vocabulary("run_kind", RunKind, title="Kind")
vocabulary("run_status", RunStatus, title="Status")
vocabulary("outcome", Outcome, title="Outcome")
vocabulary("item_state", ItemState, title="State")


class Run(models.Model):
    name = models.CharField(max_length=80, unique=True, validators=[NAME_VALIDATOR])
    kind = models.CharField(max_length=20, choices=RunKind.choices)
    release = models.ForeignKey(
        "annotation.Release", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    manifest = models.ForeignKey(
        "review.Manifest",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Empty: every step of the release",
    )
    condition = models.CharField(
        max_length=30, blank=True, help_text="Observation condition (the video judge's media)"
    )
    endpoint = models.ForeignKey("scoring.Endpoint", on_delete=models.PROTECT, related_name="runs")
    package = models.ForeignKey(
        "scoring.PromptPackage", on_delete=models.PROTECT, related_name="runs"
    )
    sources = models.ManyToManyField(
        "self",
        symmetrical=False,
        blank=True,
        related_name="judged_by",
        help_text="The runs whose candidates a judge run scores",
    )
    options = models.JSONField(default=dict, blank=True)
    provenance = models.JSONField(
        default=dict, blank=True, help_text="Endpoint, package, sampling and manifest hashes"
    )
    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.RUNNING)
    error = models.TextField(blank=True, help_text="Why the run stopped on its own")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=RunKind.values), name="run_kind_valid"),
            models.CheckConstraint(
                condition=Q(status__in=RunStatus.values), name="run_status_valid"
            ),
            models.CheckConstraint(
                condition=~Q(kind="prediction") | (Q(release__isnull=False) & ~Q(condition="")),
                name="run_prediction_has_steps_and_condition",
            ),
            models.CheckConstraint(
                # A QA run's manifest samples QA groups, not the steps of a release.
                condition=Q(manifest__isnull=True)
                | Q(release__isnull=False)
                | Q(kind="qa_prediction"),
                name="run_manifest_has_release",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_judge(self) -> bool:
        return self.kind in JUDGE_KINDS


class RunItem(Leased):
    """One model call of a run."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveIntegerField(help_text="Order within the run")
    key = models.CharField(
        max_length=200, help_text="The sample uid (predictions) or the judged unit"
    )
    sample_id = models.UUIDField(null=True, blank=True, help_text="The step, when one step")
    state = models.CharField(max_length=10, choices=ItemState.choices, default=ItemState.PENDING)
    outcome = models.CharField(max_length=20, choices=Outcome.choices, blank=True)
    media = models.ForeignKey(
        "media.RenderedMedia", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    input = models.JSONField(
        default=dict, blank=True, help_text="The data the user template receives, as sent"
    )
    interface = models.CharField(
        max_length=20, blank=True, help_text="How media was sent: frames, video_base64, ..."
    )
    media_sha256 = models.CharField(max_length=64, blank=True)
    cache_key = models.CharField(max_length=64, blank=True)
    cached_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    returned_model = models.CharField(max_length=200, blank=True)
    raw_response = models.TextField(blank=True)
    prediction = models.JSONField(null=True, blank=True, help_text="The three fields, when ok")
    detail = models.CharField(max_length=500, blank=True, help_text="Why the outcome")
    calls = models.JSONField(default=list, blank=True, help_text="Every HTTP attempt")
    requests = models.PositiveIntegerField(default=0, help_text="HTTP requests made (len(calls))")
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True, help_text="Why it waits or stopped (media, lease)")
    cutoff_us = models.BigIntegerField(
        null=True,
        blank=True,
        help_text="QA runs: the turn's decision cutoff; its media holds no frame at or after it",
    )
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["run_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["run", "key"], name="runitem_unique_key"),
            models.CheckConstraint(
                condition=Q(state__in=ItemState.values), name="runitem_state_valid"
            ),
            models.CheckConstraint(
                condition=Q(outcome="") | Q(outcome__in=Outcome.values),
                name="runitem_outcome_valid",
            ),
            models.CheckConstraint(
                condition=Q(state="done", outcome__gt="") | (~Q(state="done") & Q(outcome="")),
                name="runitem_done_has_outcome",
            ),
            # Nothing but ok carries a prediction: a failure is never a text to score.
            models.CheckConstraint(
                condition=Q(prediction__isnull=True) | Q(outcome="ok"),
                name="runitem_prediction_only_when_ok",
            ),
        ]
        indexes = [
            # The drivers' claim: WHERE run_id = ? AND state = 'pending' ORDER BY position
            models.Index(fields=["run", "state", "position"], name="runitem_claim_idx"),
            # The cache: WHERE cache_key = ? AND outcome = 'ok'
            models.Index(fields=["cache_key", "outcome"], name="runitem_cache_idx"),
            # Reports name the model ids each run's API answered with: DISTINCT per run, read
            # from this index alone
            models.Index(fields=["run", "returned_model"], name="runitem_returned_model_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.run_id}:{self.key}"

"""Sample designs (editable drafts) and the frozen manifests drawn with them.

A manifest is written and sealed in one transaction by ``services.manifest_freeze``; after
that neither it nor its samples change or disappear (save/delete overrides, queryset guards, and
PostgreSQL triggers in migration 0002). It keeps its own copy of the design, seed and release
hashes, so editing the draft design later changes nothing frozen.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotation.models.releases import NAME_VALIDATOR, FrozenError, Sealed, SealedQuerySet
from studio.vocabulary import vocabulary


class Kind(models.TextChoices):
    AUDIT = "audit", "Annotation audit"
    HUMAN_BASELINE = "human_baseline", "Human baseline"
    DIAGNOSTIC = "diagnostic", "Diagnostic study"
    BOUNDARY_AUDIT = "boundary_audit", "Boundary audit"
    JUDGE_VALIDATION = "judge_validation", "Judge validation"
    QA_REVIEW = "qa_review", "QA-group review"
    CUSTOM = "custom", "Other"


class Method(models.TextChoices):
    STRATIFIED = "stratified", "Stratified (proportional, covering)"
    QUOTA = "quota", "Quota-balanced"
    COMPLETE_GROUPS = "complete_groups", "Complete groups"
    MILP = "milp", "Exact balanced program (judge validation)"


vocabulary("manifest_kind", Kind, title="Kind")
vocabulary("sampling_method", Method, title="Method")


class SampleDesign(models.Model):
    """A draft: method, parameters and seed over one release. Preview it, then freeze it."""

    name = models.CharField(max_length=80, validators=[NAME_VALIDATOR])
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.AUDIT)
    method = models.CharField(max_length=20, choices=Method.choices)
    release = models.ForeignKey(
        "annotation.Release", on_delete=models.PROTECT, related_name="sample_designs"
    )
    seed = models.BigIntegerField(help_text="Any integer from 0 to 2**53 - 1")
    params = models.JSONField(default=dict, blank=True, help_text="See docs/manifests.md")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-updated_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(seed__gte=0) & Q(seed__lte=2**53 - 1), name="design_seed_range"
            ),
            models.CheckConstraint(
                condition=Q(method__in=["stratified", "quota", "complete_groups"]),
                name="design_method_valid",
            ),
            models.CheckConstraint(condition=Q(kind__in=Kind.values), name="design_kind_valid"),
        ]

    def __str__(self) -> str:
        return self.name


class ManifestQuerySet(SealedQuerySet):
    what = "Frozen manifests"


class ManifestSampleQuerySet(SealedQuerySet):
    frozen_filter = {"manifest__frozen_at__isnull": False}
    what = "Samples of a frozen manifest"

    def bulk_create(self, objs, *args, **kwargs):
        objs = list(objs)
        ids = {o.manifest_id for o in objs}
        if Manifest.objects.filter(pk__in=ids, frozen_at__isnull=False).exists():
            raise FrozenError("A frozen manifest takes no new samples; freeze a new one.")
        return super().bulk_create(objs, *args, **kwargs)


class Manifest(Sealed):
    """A frozen subset of a release: design, seed, sample list and both SHA-256 values."""

    name = models.CharField(max_length=80, unique=True, validators=[NAME_VALIDATOR])
    kind = models.CharField(max_length=20, choices=Kind.choices)
    method = models.CharField(max_length=20, choices=Method.choices)
    seed = models.BigIntegerField()
    release = models.ForeignKey(
        "annotation.Release",
        on_delete=models.PROTECT,
        related_name="manifests",
        null=True,  # a QA-review manifest draws from a QA group set instead (review/qa)
        blank=True,
    )
    design = models.ForeignKey(
        SampleDesign,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="manifests",
        help_text="The draft it was frozen from (the manifest keeps its own copy)",
    )
    objects = ManifestQuerySet.as_manager()
    correction_hint = "freeze a new one instead"

    class Meta:
        ordering = ["-frozen_at", "-id"]
        constraints = [
            *Sealed.Meta.constraints,
            models.CheckConstraint(condition=Q(kind__in=Kind.values), name="manifest_kind_valid"),
            models.CheckConstraint(
                condition=Q(method__in=Method.values), name="manifest_method_valid"
            ),
        ]


class ManifestSample(models.Model):
    """One sampled step: the release step, its duration bin and (for group designs) its group."""

    manifest = models.ForeignKey(Manifest, on_delete=models.PROTECT, related_name="samples")
    release_step = models.ForeignKey(
        "annotation.ReleaseStep",
        on_delete=models.PROTECT,
        related_name="+",
        null=True,  # null for a QA-review sample: the sample id is a QA group's uid
        blank=True,
    )
    sample_id = models.UUIDField()
    duration_bin = models.PositiveSmallIntegerField()
    group = models.CharField(max_length=80, blank=True)

    objects = ManifestSampleQuerySet.as_manager()

    class Meta:
        ordering = ["manifest_id", "sample_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["manifest", "sample_id"], name="manifestsample_unique_sample"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.manifest_id}:{self.sample_id}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise FrozenError("Manifest samples never change.")
        if Manifest.objects.filter(pk=self.manifest_id, frozen_at__isnull=False).exists():
            raise FrozenError("A frozen manifest takes no new samples; freeze a new one.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise FrozenError("Manifest samples are never deleted.")

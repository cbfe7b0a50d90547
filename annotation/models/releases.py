"""Frozen releases of the benchmark: a snapshot of every step, sealed with two SHA-256 values.

A release row is written and sealed (``frozen_at`` set) inside one transaction by
``annotation.releases.release_freeze`` or ``release_import``; from then on neither the release
nor its steps change or disappear. The code refuses it (save/delete overrides, queryset guards)
and on PostgreSQL triggers refuse it too (migration 0003). A correction is a new release that
names its parent.

A release step stands alone: scene and source video are copied as text (the scene slug and the
video's SHA-256), so a release imported into another instance needs none of the video files and
no database ids.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Length
from django.db.models.lookups import Exact


class NameValidator(RegexValidator):
    """The one name rule for everything a person names (releases, manifests, designs, campaigns,
    QA group sets, endpoints, packages, runs, studies): lower-case letters, digits, ``_ . -``,
    starting with a letter or digit, at most 80 characters. Names appear in file names, URLs,
    download headers and command lines, so nothing else is allowed in them.

    The whole text must match: a regular expression's ``$`` also matches before a final line
    break, which would let ``"name\\n"`` through. It deconstructs as the plain RegexValidator it
    refines, so the migrations that carry it do not change."""

    def __call__(self, value) -> None:
        if not isinstance(value, str) or not self.regex.fullmatch(value):
            raise ValidationError(self.message, code=self.code, params={"value": value})

    def deconstruct(self):
        _path, args, kwargs = super().deconstruct()
        return "django.core.validators.RegexValidator", args, kwargs


NAME_VALIDATOR = NameValidator(
    r"^[a-z0-9][a-z0-9_.-]{0,79}$",
    "Use lower-case letters, digits, '_', '.' and '-', for example egointent_v1.",
)


def name_check(name, *, what: str = "name") -> str:
    """``name`` if it follows the one name rule; otherwise ValidationError saying what the name
    is for and what the rule is (for commands and services that take a name as an argument)."""
    try:
        NAME_VALIDATOR(name)
    except ValidationError:
        raise ValidationError(f"{what} {name!r}: {NAME_VALIDATOR.message}") from None
    return name


class FrozenError(PermissionError):
    """A frozen release or manifest was about to change."""


class SealedQuerySet(models.QuerySet):
    """Bulk writes that would reach a sealed row are refused (``frozen_filter`` finds them)."""

    frozen_filter: dict = {"frozen_at__isnull": False}
    what = "frozen rows"

    def _refuse_if_frozen(self) -> None:
        if self.filter(**self.frozen_filter).exists():
            raise FrozenError(f"{self.what} never change; make a new version instead.")

    def update(self, **kwargs):
        self._refuse_if_frozen()
        return super().update(**kwargs)

    def delete(self):
        raise FrozenError(f"{self.what} are never deleted.")

    def bulk_update(self, objs, fields, batch_size=None):
        self.filter(pk__in=[o.pk for o in objs])._refuse_if_frozen()
        return super().bulk_update(objs, fields, batch_size=batch_size)


class ReleaseQuerySet(SealedQuerySet):
    what = "Frozen releases"


class ReleaseStepQuerySet(SealedQuerySet):
    frozen_filter = {"release__frozen_at__isnull": False}
    what = "Steps of a frozen release"

    def bulk_create(self, objs, *args, **kwargs):
        objs = list(objs)
        release_ids = {o.release_id for o in objs}
        if Release.objects.filter(pk__in=release_ids, frozen_at__isnull=False).exists():
            raise FrozenError("A frozen release takes no new steps; make a correction instead.")
        return super().bulk_create(objs, *args, **kwargs)


class Sealed(models.Model):
    """What a release and a manifest share: both SHA-256 values, the canonical manifest text, and
    the seal. Once ``frozen_at`` is set the row never changes and is never deleted."""

    sample_count = models.PositiveIntegerField(default=0)
    sample_list_sha256 = models.CharField(max_length=64, blank=True)
    records_sha256 = models.CharField(max_length=64, blank=True)
    manifest_sha256 = models.CharField(max_length=64, blank=True)
    manifest_text = models.TextField(
        blank=True, help_text="The complete manifest, in canonical JSON (exactly the hashed bytes)"
    )
    frozen_at = models.DateTimeField(null=True, blank=True)
    frozen_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    correction_hint = "make a new version instead"

    class Meta:
        abstract = True
        constraints = [
            models.CheckConstraint(
                condition=Q(frozen_at__isnull=True)
                | (
                    Exact(Length("sample_list_sha256"), 64)
                    & Exact(Length("records_sha256"), 64)
                    & Exact(Length("manifest_sha256"), 64)
                ),
                name="%(class)s_frozen_has_hashes",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs):
        if (
            self.pk is not None
            and type(self).objects.filter(pk=self.pk, frozen_at__isnull=False).exists()
        ):
            name = self._meta.verbose_name.capitalize()
            raise FrozenError(f"{name} {self.name} is frozen; {self.correction_hint}.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise FrozenError(f"{self._meta.verbose_name_plural.capitalize()} are never deleted.")

    @property
    def is_frozen(self) -> bool:
        return self.frozen_at is not None

    @property
    def manifest(self) -> dict:
        return json.loads(self.manifest_text) if self.manifest_text else {}


class Release(Sealed):
    class Origin(models.TextChoices):
        FROZEN = "frozen", "Frozen here"
        IMPORTED = "imported", "Imported from a bundle"

    name = models.CharField(max_length=80, unique=True, validators=[NAME_VALIDATOR])
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="corrections"
    )
    note = models.TextField(blank=True, help_text="Why it was made; not part of the hashes")
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.FROZEN)
    objects = ReleaseQuerySet.as_manager()
    correction_hint = "make a correction instead"

    class Meta:
        ordering = ["-frozen_at", "-id"]
        constraints = [
            *Sealed.Meta.constraints,
            models.CheckConstraint(
                condition=Q(origin__in=["frozen", "imported"]), name="release_origin_valid"
            ),
            models.CheckConstraint(condition=~Q(parent=F("id")), name="release_not_own_parent"),
        ]


class ReleaseStep(models.Model):
    """One step as it stood when the release was frozen (a record of ``release-step/2``, or of
    ``release-step/1`` for a release frozen with it: annotation/releases/formats.py)."""

    release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="steps")
    sample_id = models.UUIDField(help_text="The step's uid: stable across releases and instances")
    step = models.ForeignKey(
        "annotation.MicroStep",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="release_copies",
        help_text="The live step, when this instance has it (empty after an import)",
    )
    scene_slug = models.CharField(max_length=80)
    video_sha256 = models.CharField(max_length=64)
    position = models.PositiveIntegerField()
    start_us = models.BigIntegerField()
    cutoff_us = models.BigIntegerField()
    outcome_us = models.BigIntegerField()
    end_us = models.BigIntegerField()
    local_intent = models.TextField(blank=True)
    procedural_intent = models.TextField(blank=True)
    next_step = models.TextField(blank=True)
    plausible_next_steps = models.JSONField(default=list, blank=True)
    tags = models.JSONField(default=list, blank=True, help_text="The step's tags when frozen")

    objects = ReleaseStepQuerySet.as_manager()

    class Meta:
        ordering = ["release_id", "sample_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["release", "sample_id"], name="releasestep_unique_sample"
            ),
            models.CheckConstraint(
                condition=Q(start_us__gte=0)
                & Q(start_us__lt=F("cutoff_us"))
                & Q(cutoff_us__lte=F("outcome_us"))
                & Q(outcome_us__lte=F("end_us")),
                name="releasestep_times_ordered",
            ),
            models.CheckConstraint(
                condition=Exact(Length("video_sha256"), 64), name="releasestep_sha256_length"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.release_id}:{self.sample_id}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise FrozenError("Release steps never change; make a correction instead.")
        if Release.objects.filter(pk=self.release_id, frozen_at__isnull=False).exists():
            raise FrozenError("A frozen release takes no new steps; make a correction instead.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise FrozenError("Release steps are never deleted.")

    @property
    def duration_us(self) -> int:
        return self.end_us - self.start_us

"""QA groups (second paper, EgoOmniWorld): versions of the group set, groups, their turns and
evidence intervals, the reviewers' proposed edits, and the link from a QA manifest to the version
it was drawn from. Imported by ``review.models`` so they belong to the ``review`` app.

- A **group set** is one frozen version of the QA groups (both SHA-256 values, like a release).
  Its groups, turns and evidence never change once it is frozen; accepting edits makes a new
  version that names its parent (``review.qa.versions``).
- An **edit** is a reviewer's proposal stored beside the original (author, time, reason): it
  never overwrites the group. Only its decision (accepted into a version, or declined) is set
  later, once; what was proposed never changes.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from annotation.models.releases import NAME_VALIDATOR, FrozenError, Sealed, SealedQuerySet
from studio.vocabulary import vocabulary


class Structure(models.TextChoices):
    NODE = "node", "Node"
    EDGE = "edge", "Edge"
    CHAIN = "chain", "Chain"
    LOOP = "loop", "Loop"


class Modality(models.TextChoices):
    """What a group needs to be answered (the evidence intervals carry visual or auditory)."""

    VISUAL = "visual", "Visual"
    AUDITORY = "auditory", "Auditory"
    AUDIO_VISUAL = "audio_visual", "Audio-visual"


EVIDENCE_MODALITIES = ("visual", "auditory")
vocabulary("qa_structure", Structure, title="Structure")
vocabulary("qa_modality", Modality, title="Modality")
# Categories are open (an import may bring new ones, shown humanised); these are the usual ones.
vocabulary(
    "qa_category",
    {
        "action_status": "Action status",
        "world_perception": "World perception",
        "goal_planning": "Goal planning",
    },
    title="Category",
)


class QaGroupSetQuerySet(SealedQuerySet):
    what = "Frozen QA group sets"


class QaGroupSet(Sealed):
    """One version of the QA groups: imported from a file, or made from a parent by accepting
    reviewers' edits. Frozen when written."""

    class Origin(models.TextChoices):
        IMPORTED = "imported", "Imported from a file"
        EDITED = "edited", "Edits accepted into a new version"

    name = models.CharField(max_length=80, unique=True, validators=[NAME_VALIDATOR])
    origin = models.CharField(max_length=10, choices=Origin.choices)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="children"
    )
    note = models.TextField(blank=True)
    objects = QaGroupSetQuerySet.as_manager()

    class Meta:
        verbose_name = "QA group set"
        ordering = ["-frozen_at", "-id"]
        constraints = [
            *Sealed.Meta.constraints,
            models.CheckConstraint(
                condition=Q(origin__in=["imported", "edited"]), name="qagroupset_origin_valid"
            ),
            models.CheckConstraint(
                condition=Q(origin="imported") | Q(parent__isnull=False),
                name="qagroupset_edited_has_parent",
            ),
        ]


class _InSetQuerySet(SealedQuerySet):
    def bulk_create(self, objs, *args, **kwargs):
        objs = list(objs)
        if objs and self._frozen_parent(objs):
            raise FrozenError("A frozen QA group set takes no new rows; make a new version.")
        return super().bulk_create(objs, *args, **kwargs)

    def _frozen_parent(self, objs) -> bool:  # pragma: no cover - overridden
        return False


class QaGroupQuerySet(_InSetQuerySet):
    frozen_filter = {"group_set__frozen_at__isnull": False}
    what = "Groups of a frozen QA group set"

    def _frozen_parent(self, objs) -> bool:
        ids = {o.group_set_id for o in objs}
        return QaGroupSet.objects.filter(pk__in=ids, frozen_at__isnull=False).exists()


class QaGroup(models.Model):
    """One question-answer group: reviewed whole (a multi-turn dialogue is one group)."""

    group_set = models.ForeignKey(QaGroupSet, on_delete=models.PROTECT, related_name="groups")
    uid = models.UUIDField(help_text="Stable across versions")
    video = models.ForeignKey(
        "media.SourceVideo", on_delete=models.PROTECT, related_name="qa_groups"
    )
    split = models.CharField(max_length=10)
    structure = models.CharField(max_length=10, choices=Structure.choices)
    category = models.CharField(max_length=60)
    modality = models.CharField(max_length=20, choices=Modality.choices)
    turn_count = models.PositiveSmallIntegerField()
    episodes = models.JSONField(default=list, blank=True, help_text="Linked episode ids")
    provenance = models.JSONField(default=dict, help_text="source_ids, generator_version")
    span_start_us = models.BigIntegerField(help_text="First evidence start (the clip's start)")
    span_end_us = models.BigIntegerField(help_text="Last evidence end (the clip's end)")

    objects = QaGroupQuerySet.as_manager()

    class Meta:
        verbose_name = "QA group"
        ordering = ["group_set_id", "uid"]
        constraints = [
            models.UniqueConstraint(fields=["group_set", "uid"], name="qagroup_unique_uid"),
            models.CheckConstraint(
                condition=Q(structure__in=Structure.values), name="qagroup_structure_valid"
            ),
            models.CheckConstraint(
                condition=Q(modality__in=Modality.values), name="qagroup_modality_valid"
            ),
            models.CheckConstraint(condition=Q(turn_count__gte=1), name="qagroup_has_turns"),
            models.CheckConstraint(
                condition=Q(span_start_us__gte=0) & Q(span_end_us__gt=F("span_start_us")),
                name="qagroup_span_valid",
            ),
        ]

    def __str__(self) -> str:
        return str(self.uid)

    def save(self, *args, **kwargs):
        if QaGroupSet.objects.filter(pk=self.group_set_id, frozen_at__isnull=False).exists():
            raise FrozenError("Groups of a frozen QA group set never change; make a new version.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise FrozenError("QA groups are never deleted.")

    @property
    def display_name(self) -> str:
        """How staff pages name the group: "Edge question on garden-watering.mp4
        (0:12.000 - 0:15.000)" (its structure, its video, the stretch its evidence covers)."""
        from studio.display import span

        stretch = span(self.span_start_us, self.span_end_us)
        return f"{self.get_structure_display()} question on {self.video.title} ({stretch})"


class QaTurnQuerySet(_InSetQuerySet):
    frozen_filter = {"group__group_set__frozen_at__isnull": False}
    what = "Turns of a frozen QA group set"

    def _frozen_parent(self, objs) -> bool:
        ids = {o.group_id for o in objs}
        return QaGroup.objects.filter(pk__in=ids, group_set__frozen_at__isnull=False).exists()


class QaTurn(models.Model):
    group = models.ForeignKey(QaGroup, on_delete=models.PROTECT, related_name="turns")
    position = models.PositiveSmallIntegerField(help_text="0-based order in the dialogue")
    question = models.TextField()
    answer = models.TextField(help_text="The reference answer")
    options = models.JSONField(null=True, blank=True, help_text="Multiple-choice options, or null")
    depends_on = models.JSONField(default=list, blank=True, help_text="Earlier turn positions")
    cutoff_us = models.BigIntegerField(
        null=True,
        blank=True,
        help_text="Decision cutoff of a predictive turn: the first frame withheld from a model",
    )

    objects = QaTurnQuerySet.as_manager()

    class Meta:
        verbose_name = "QA turn"
        ordering = ["group_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["group", "position"], name="qaturn_unique_position"),
        ]

    def __str__(self) -> str:
        return f"{self.group_id}#{self.position}"

    def save(self, *args, **kwargs):
        if QaGroup.objects.filter(pk=self.group_id, group_set__frozen_at__isnull=False).exists():
            raise FrozenError("Turns of a frozen QA group set never change; make a new version.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise FrozenError("QA turns are never deleted.")


class QaEvidenceQuerySet(_InSetQuerySet):
    frozen_filter = {"turn__group__group_set__frozen_at__isnull": False}
    what = "Evidence of a frozen QA group set"

    def _frozen_parent(self, objs) -> bool:
        ids = {o.turn_id for o in objs}
        return QaTurn.objects.filter(pk__in=ids, group__group_set__frozen_at__isnull=False).exists()


class QaEvidence(models.Model):
    """An evidence interval of a turn: half-open ``[start_us, end_us)`` on the source's frames."""

    turn = models.ForeignKey(QaTurn, on_delete=models.PROTECT, related_name="evidence")
    position = models.PositiveSmallIntegerField()
    start_us = models.BigIntegerField()
    end_us = models.BigIntegerField()
    modality = models.CharField(max_length=10)
    description = models.TextField()

    objects = QaEvidenceQuerySet.as_manager()

    class Meta:
        verbose_name = "QA evidence interval"
        verbose_name_plural = "QA evidence intervals"
        ordering = ["turn_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["turn", "position"], name="qaevidence_unique_position"),
            models.CheckConstraint(
                condition=Q(start_us__gte=0) & Q(end_us__gt=F("start_us")),
                name="qaevidence_interval_valid",
            ),
            models.CheckConstraint(
                condition=Q(modality__in=EVIDENCE_MODALITIES), name="qaevidence_modality_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.turn_id}/{self.position}"

    def save(self, *args, **kwargs):
        if QaTurn.objects.filter(
            pk=self.turn_id, group__group_set__frozen_at__isnull=False
        ).exists():
            raise FrozenError("Evidence of a frozen QA group set never changes.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise FrozenError("QA evidence intervals are never deleted.")


class QaManifestSource(models.Model):
    """Which QA group set version a ``qa_review`` manifest was drawn from (its samples are the
    groups' uids)."""

    manifest = models.OneToOneField(
        "review.Manifest", on_delete=models.PROTECT, related_name="qa_source"
    )
    group_set = models.ForeignKey(QaGroupSet, on_delete=models.PROTECT, related_name="manifests")

    class Meta:
        verbose_name = "QA manifest source"

    def __str__(self) -> str:
        return f"{self.manifest_id} from {self.group_set_id}"

    def delete(self, *args, **kwargs):
        raise FrozenError("Manifest sources are never deleted.")


class EditField(models.TextChoices):
    QUESTION = "question", "Question"
    ANSWER = "answer", "Reference answer"
    OPTIONS = "options", "Answer options"
    INTERVAL = "interval", "Evidence interval"
    EVIDENCE_MODALITY = "evidence_modality", "Evidence modality"
    DESCRIPTION = "description", "Evidence description"
    STRUCTURE = "structure", "Structure"
    CATEGORY = "category", "Semantic category"
    MODALITY = "modality", "Required modality"


vocabulary("qa_edit_field", EditField, title="Field")
TURN_FIELDS = ("question", "answer", "options")
EVIDENCE_FIELDS = ("interval", "evidence_modality", "description")
GROUP_FIELDS = ("structure", "category", "modality")


class QaEditQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise PermissionError("Edits never change; decide them with qa_edit_decide.")

    def delete(self):
        raise PermissionError("Edits are never deleted.")


class QaEdit(models.Model):
    """A proposed change to one field of a group, kept apart from the original."""

    class State(models.TextChoices):
        PROPOSED = "proposed", "Proposed"
        ACCEPTED = "accepted", "Accepted into a new version"
        DECLINED = "declined", "Declined"

    group = models.ForeignKey(QaGroup, on_delete=models.PROTECT, related_name="edits")
    turn = models.PositiveSmallIntegerField(null=True, blank=True)
    evidence = models.PositiveSmallIntegerField(null=True, blank=True)
    field = models.CharField(max_length=20, choices=EditField.choices)
    original = models.JSONField(null=True, help_text="The value as it was in the group")
    proposed = models.JSONField(help_text="The value the reviewer proposes")
    reason = models.TextField()
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField()
    submission = models.ForeignKey(
        "review.Submission", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    state = models.CharField(max_length=10, choices=State.choices, default=State.PROPOSED)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    accepted_into = models.ForeignKey(
        QaGroupSet, null=True, blank=True, on_delete=models.PROTECT, related_name="accepted_edits"
    )

    objects = QaEditQuerySet.as_manager()

    class Meta:
        verbose_name = "QA edit"
        ordering = ["group_id", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(field__in=EditField.values), name="qaedit_field_valid"
            ),
            models.CheckConstraint(
                condition=Q(state__in=["proposed", "accepted", "declined"]),
                name="qaedit_state_valid",
            ),
            models.CheckConstraint(
                condition=~Q(state="accepted") | Q(accepted_into__isnull=False),
                name="qaedit_accepted_has_version",
            ),
            models.CheckConstraint(
                condition=Q(field__in=GROUP_FIELDS, turn__isnull=True, evidence__isnull=True)
                | Q(field__in=TURN_FIELDS, turn__isnull=False, evidence__isnull=True)
                | Q(field__in=EVIDENCE_FIELDS, turn__isnull=False, evidence__isnull=False),
                name="qaedit_target_matches_field",
            ),
        ]

    def __str__(self) -> str:
        return f"edit {self.pk} ({self.field})"

    _DECISION = ("state", "decided_by", "decided_at", "accepted_into")

    def save(self, *args, **kwargs):
        if not self._state.adding:
            fields = kwargs.get("update_fields")
            stored = QaEdit.objects.filter(pk=self.pk).values_list("state", flat=True).first()
            if not fields or set(fields) - set(self._DECISION) or stored != self.State.PROPOSED:
                raise PermissionError("An edit is decided once; what was proposed never changes.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionError("Edits are never deleted.")


vocabulary("qa_set_origin", QaGroupSet.Origin, title="Origin")
vocabulary("qa_edit_state", QaEdit.State, title="State")

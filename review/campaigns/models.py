"""Campaign rows. Imported by ``review.models`` so they belong to the ``review`` app.

Rules the database holds (names in the constraints):

- one live holder per item: at most one assignment of an item is ``leased`` at a time (a partial
  unique index; a claim first turns expired leases of the item into ``expired`` under the item's
  row lock), so an item is never leased to two people at once;
- one lease per person and campaign: a person works on one item at a time;
- one assignment per (item, person): a person who comes back to an item gets the same one (and
  their draft) back;
- submissions are never edited nor deleted; a change of mind is a new submission that names the
  one it supersedes, and each submission is superseded at most once (a chain, both kept).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotation.models.releases import NAME_VALIDATOR
from studio.vocabulary import vocabulary


class Campaign(models.Model):
    class State(models.TextChoices):
        OPEN = "open", "Open"
        CLOSED = "closed", "Closed"

    name = models.CharField(max_length=80, unique=True, validators=[NAME_VALIDATOR])
    kind = models.CharField(max_length=40, help_text="A registered campaign kind (kinds.py)")
    manifest = models.ForeignKey(
        "review.Manifest", on_delete=models.PROTECT, related_name="campaigns"
    )
    people = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="campaigns", blank=True)
    per_item = models.PositiveSmallIntegerField(help_text="Distinct people who judge each item")
    seed = models.BigIntegerField(help_text="Fixes every person's order (docs/review.md)")
    instructions = models.TextField(blank=True)
    options = models.JSONField(
        default=dict, blank=True, help_text="Kind-specific options (e.g. extra error codes)"
    )
    state = models.CharField(max_length=10, choices=State.choices, default=State.OPEN)
    lease_seconds = models.PositiveIntegerField(
        default=900, help_text="How long a claim lasts without activity"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(per_item__gte=1), name="campaign_per_item_positive"),
            models.CheckConstraint(
                condition=Q(seed__gte=0) & Q(seed__lte=2**53 - 1), name="campaign_seed_range"
            ),
            models.CheckConstraint(
                condition=Q(state__in=["open", "closed"]), name="campaign_state_valid"
            ),
            models.CheckConstraint(
                condition=Q(lease_seconds__gte=1), name="campaign_lease_seconds_positive"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_open(self) -> bool:
        return self.state == self.State.OPEN


class CampaignItem(models.Model):
    """One sample of the campaign's manifest: the row a claim locks."""

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="items")
    sample = models.ForeignKey(
        "review.ManifestSample", on_delete=models.PROTECT, related_name="campaign_items"
    )

    class Meta:
        ordering = ["campaign_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "sample"], name="campaignitem_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.campaign_id}:{self.sample_id}"


class ItemOrder(models.Model):
    """A person's place for an item: ``key`` = order_key(person id, sample id, seed). One row per
    (person, item) the person may take; an excluded pair has an Exclusion row instead."""

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="orders")
    person = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    item = models.ForeignKey(CampaignItem, on_delete=models.PROTECT, related_name="orders")
    key = models.CharField(max_length=64)

    class Meta:
        ordering = ["campaign_id", "person_id", "key", "item_id"]
        constraints = [
            models.UniqueConstraint(fields=["person", "item"], name="itemorder_unique"),
        ]
        indexes = [
            # claim: WHERE campaign = ? AND person = ? ORDER BY key
            models.Index(fields=["campaign", "person", "key"], name="itemorder_claim_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.person_id}:{self.item_id} {self.key[:12]}"


class Exclusion(models.Model):
    """A person who may not take an item, and why (from the kind's exclusion hook)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="exclusions")
    person = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    item = models.ForeignKey(CampaignItem, on_delete=models.PROTECT, related_name="exclusions")
    reason = models.CharField(max_length=200)

    class Meta:
        ordering = ["campaign_id", "person_id", "item_id"]
        constraints = [
            models.UniqueConstraint(fields=["person", "item"], name="exclusion_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.person_id}:{self.item_id} excluded"


class Assignment(models.Model):
    """A person's work on one item: the lease while they hold it, their draft, their progress.

    ``token`` is the only thing a page, URL or JSON answer names an assignment by (it carries no
    step, sample or video id)."""

    class State(models.TextChoices):
        LEASED = "leased", "Leased"  # held until lease_expires_at (renewed by activity)
        RELEASED = "released", "Released"  # given back by the person
        EXPIRED = "expired", "Expired"  # the lease ran out and a claim took the item back
        DONE = "done", "Done"  # every part submitted

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="assignments")
    item = models.ForeignKey(CampaignItem, on_delete=models.PROTECT, related_name="assignments")
    person = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    token = models.CharField(max_length=43, unique=True, help_text="Opaque, random (URL-safe)")
    state = models.CharField(max_length=10, choices=State.choices, default=State.LEASED)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    committed = models.BooleanField(
        default=False,
        help_text="A part was submitted: the assignment keeps its place among the item's people",
    )
    claims = models.PositiveIntegerField(default=1, help_text="How many times it was leased")
    draft = models.JSONField(default=dict, blank=True, help_text="Autosaved, by part")
    draft_saved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["campaign_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["item", "person"], name="assignment_unique_person"),
            models.UniqueConstraint(
                fields=["item"], condition=Q(state="leased"), name="assignment_one_holder"
            ),
            models.UniqueConstraint(
                fields=["campaign", "person"],
                condition=Q(state="leased"),
                name="assignment_one_lease_per_person",
            ),
            models.CheckConstraint(
                condition=Q(state__in=["leased", "released", "expired", "done"]),
                name="assignment_state_valid",
            ),
            models.CheckConstraint(
                condition=~Q(state="leased") | Q(lease_expires_at__isnull=False),
                name="assignment_leased_has_expiry",
            ),
            models.CheckConstraint(
                condition=~Q(state="done") | Q(committed=True), name="assignment_done_committed"
            ),
        ]
        indexes = [
            models.Index(fields=["item", "state"], name="assignment_item_state_idx"),
        ]

    def __str__(self) -> str:
        return f"assignment {self.pk} ({self.state})"


class SubmissionQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise PermissionError("Submissions are never edited; supersede them instead.")

    def delete(self):
        raise PermissionError("Submissions are never deleted.")


class Submission(models.Model):
    """One submitted part of an assignment, as the kind validated it. Never edited or deleted;
    a later one that ``supersedes`` it replaces it in every count, and both are kept."""

    assignment = models.ForeignKey(Assignment, on_delete=models.PROTECT, related_name="submissions")
    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="submissions")
    item = models.ForeignKey(CampaignItem, on_delete=models.PROTECT, related_name="submissions")
    person = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    part = models.CharField(max_length=40, blank=True, help_text="The kind's part (e.g. phase1)")
    payload = models.JSONField()
    supersedes = models.OneToOneField(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="superseded_by",
        help_text="The submission this one replaces (kept)",
    )
    reason = models.TextField(blank=True, help_text="Why it was superseded, when it was")
    created_at = models.DateTimeField()

    objects = SubmissionQuerySet.as_manager()

    class Meta:
        ordering = ["campaign_id", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "part"],
                condition=Q(supersedes__isnull=True),
                name="submission_one_first_per_part",
            ),
        ]
        indexes = [
            models.Index(fields=["campaign", "item", "part"], name="submission_item_part_idx"),
        ]

    def __str__(self) -> str:
        return f"submission {self.pk}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise PermissionError("Submissions are never edited; supersede them instead.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionError("Submissions are never deleted.")


class Exposure(models.Model):
    """What the server showed a person: the part (phase), the media grants and the fields.

    Appended by the kinds' item pages through ``record_exposure`` (assignment, campaign and item
    set; ``source`` the campaign's kind), and by the pages outside campaign items that show a
    step's reference answers (``source`` ``adjudication``: campaign and item set, no assignment;
    ``workspace``: only ``step_uid``). Proves blinding later, and is what the exposure rule
    (``review.campaigns.exposure``) reads to say whose references a person has seen."""

    assignment = models.ForeignKey(
        Assignment, null=True, blank=True, on_delete=models.PROTECT, related_name="exposures"
    )
    campaign = models.ForeignKey(
        Campaign, null=True, blank=True, on_delete=models.PROTECT, related_name="exposures"
    )
    item = models.ForeignKey(
        CampaignItem, null=True, blank=True, on_delete=models.PROTECT, related_name="exposures"
    )
    person = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    source = models.CharField(
        max_length=40,
        blank=True,
        help_text="Where it was shown: the campaign's kind, adjudication or workspace",
    )
    step_uid = models.UUIDField(
        null=True,
        blank=True,
        help_text="The step whose reference answers a page outside campaign items showed",
    )
    part = models.CharField(max_length=40, blank=True)
    grants = models.JSONField(default=list, blank=True, help_text="Media grant ids or labels")
    fields = models.JSONField(default=list, blank=True, help_text="Field names shown")
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["campaign_id", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(assignment__isnull=True)
                | (Q(campaign__isnull=False) & Q(item__isnull=False)),
                name="exposure_assignment_has_item",
            ),
            models.CheckConstraint(
                condition=Q(item__isnull=False) | Q(step_uid__isnull=False),
                name="exposure_names_what",
            ),
            # a step shown outside campaign items is logged once per person and page: the
            # workspace inserts with ON CONFLICT DO NOTHING, one statement per answer
            models.UniqueConstraint(
                fields=["person", "source", "step_uid"],
                condition=Q(step_uid__isnull=False),
                name="exposure_step_once",
            ),
        ]

    def __str__(self) -> str:
        return f"exposure {self.pk}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise PermissionError("The exposure log is append-only.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionError("The exposure log is append-only.")


vocabulary("campaign_state", Campaign.State, title="State")
vocabulary("assignment_state", Assignment.State, title="State")

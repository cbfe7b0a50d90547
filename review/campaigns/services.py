"""Campaign writes: create, claim, renew, release, drafts, submit, supersede, exposure, close.

Claiming (``claim_next``) is the one hot path. On PostgreSQL it locks the person's first free item
(in their order) with ``SELECT … FOR UPDATE SKIP LOCKED``, so concurrent claims never wait on each
other's rows; every rule is re-checked after the lock by fresh statements (under READ COMMITTED a
new statement sees what committed meanwhile) and backed by the partial unique indexes of
``models.Assignment``. On SQLite a transaction is ``IMMEDIATE`` (settings): claims run one at a
time, which is the single-writer equivalent. See docs/review.md for the rules.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Exists, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce

from review.campaigns.kinds import CampaignKind, campaign_kind
from review.campaigns.models import (
    Assignment,
    Campaign,
    CampaignItem,
    Exclusion,
    Exposure,
    ItemOrder,
    Submission,
)
from review.campaigns.order import order_key
from review.manifests.models import Manifest, ManifestSample
from studio import services as studio_services
from studio.canonical import MAX_SAFE_INTEGER
from studio.roles import roles_of

DRAFT_MAX_BYTES = 256 * 1024
CLAIM_ROUNDS = 5  # a candidate that filled up between the pick and the lock: try the next one
LEASED = Assignment.State.LEASED


class CampaignClosed(Exception):
    """The campaign is closed: nothing more is claimed, drafted or submitted."""


class LeaseLost(Exception):
    """The caller no longer holds the item (the lease ran out and someone else took it, or it
    was given back). Their draft is kept; claim again."""


# --- creating ---------------------------------------------------------------------------------


def _check_seed(seed) -> None:
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SAFE_INTEGER:
        raise ValidationError({"seed": "Use an integer from 0 to 2**53 - 1."})


def _check_people(kind: CampaignKind, people: Sequence) -> None:
    if not people:
        raise ValidationError({"people": "Name at least one person."})
    if len({p.pk for p in people}) != len(people):
        raise ValidationError({"people": "A person is named twice."})
    if kind.roles:
        lacking = [p.username for p in people if not roles_of(p) & set(kind.roles)]
        if lacking:
            need = " or ".join(kind.roles)
            raise ValidationError({"people": f"Needs the role {need}: {', '.join(lacking)}."})


def _place_people(campaign: Campaign, kind: CampaignKind, people: Sequence, items) -> None:
    """Order rows for every allowed (person, item), Exclusion rows for the others."""
    excluded = {
        (person_id, item_id): reason
        for person_id, item_id, reason in kind.exclusions(
            campaign=campaign, items=items, people=people
        )
    }
    orders, exclusions = [], []
    for person in people:
        for item in items:
            reason = excluded.get((person.pk, item.pk))
            if reason is not None:
                exclusions.append(
                    Exclusion(campaign=campaign, person=person, item=item, reason=reason[:200])
                )
            else:
                key = order_key(person.pk, item.sample.sample_id, campaign.seed)
                orders.append(ItemOrder(campaign=campaign, person=person, item=item, key=key))
    ItemOrder.objects.bulk_create(orders, batch_size=2000)
    Exclusion.objects.bulk_create(exclusions, batch_size=2000)


@transaction.atomic
def campaign_create(
    *,
    name: str,
    kind: str,
    manifest: Manifest,
    people: Sequence,
    per_item: int | None = None,
    seed: int | None = None,
    instructions: str = "",
    options: Mapping | None = None,
    lease_seconds: int | None = None,
    author=None,
) -> Campaign:
    """A campaign over every sample of a frozen manifest. Bad input raises ValidationError and
    writes nothing. ``per_item`` defaults to the kind's, ``seed`` to the manifest's."""
    kind_obj = campaign_kind(kind)
    if not manifest.is_frozen:
        raise ValidationError({"manifest": "Campaigns run over frozen manifests only."})
    if kind_obj.manifest_kinds and manifest.kind not in kind_obj.manifest_kinds:
        allowed = ", ".join(kind_obj.manifest_kinds)
        message = f"A {kind} campaign needs a manifest of kind {allowed}, not {manifest.kind}."
        raise ValidationError({"manifest": message})
    if Campaign.objects.filter(name=name).exists():
        raise ValidationError({"name": f"A campaign named {name} already exists."})
    people = list(people)
    _check_people(kind_obj, people)
    per_item = kind_obj.per_item if per_item is None else per_item
    if not isinstance(per_item, int) or isinstance(per_item, bool) or per_item < 1:
        raise ValidationError({"per_item": "Use a whole number of at least 1."})
    if per_item > len(people):
        raise ValidationError(
            {"per_item": f"{per_item} people per item, but only {len(people)} take part."}
        )
    seed = manifest.seed if seed is None else seed
    _check_seed(seed)
    campaign = Campaign(
        name=name,
        kind=kind,
        manifest=manifest,
        per_item=per_item,
        seed=seed,
        instructions=instructions,
        options=dict(options or {}),
        created_by=author,
    )
    if lease_seconds is not None:
        campaign.lease_seconds = lease_seconds
    campaign.full_clean(exclude=["created_by", "manifest"])
    campaign.save()
    campaign.people.set(people)
    samples = ManifestSample.objects.filter(manifest=manifest).order_by("sample_id")
    CampaignItem.objects.bulk_create(
        [CampaignItem(campaign=campaign, sample=s) for s in samples], batch_size=2000
    )
    items = list(
        CampaignItem.objects.filter(campaign=campaign).select_related("sample__release_step")
    )
    _place_people(campaign, kind_obj, people, items)
    return campaign


@transaction.atomic
def campaign_close(*, campaign: Campaign) -> Campaign:
    """Close: no more claims, drafts, submissions or supersessions. Live leases end."""
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if campaign.is_open:
        campaign.state = Campaign.State.CLOSED
        campaign.closed_at = studio_services.now()
        campaign.save(update_fields=["state", "closed_at"])
        Assignment.objects.filter(campaign=campaign, state=LEASED).update(
            state=Assignment.State.RELEASED, lease_expires_at=None
        )
    return campaign


# --- claiming ---------------------------------------------------------------------------------


def _check_open(campaign: Campaign, person) -> None:
    """One query: the campaign's state as seen by a participant (none: not a participant)."""
    state = (
        Campaign.objects.filter(pk=campaign.pk, people=person)
        .values_list("state", flat=True)
        .first()
    )
    if state is None:
        raise PermissionError(f"{person} does not take part in campaign {campaign.name}.")
    if state != Campaign.State.OPEN:
        raise CampaignClosed(f"Campaign {campaign.name} is closed.")


def _expiry(campaign: Campaign, at):
    return at + timedelta(seconds=campaign.lease_seconds)


def _candidates(campaign: Campaign, person, at):
    """The person's free items in their order: not done by them, held by nobody else, and taken
    (committed or live-leased) by fewer than ``per_item`` others.

    Driven by the person's order rows in key order (index ``itemorder_claim_idx``), so with
    ``LIMIT 1`` the database checks items one by one and stops at the first free one it can lock;
    ``FOR UPDATE OF`` the item row, ``SKIP LOCKED`` so a row another claim is checking is passed
    over instead of waited for."""
    live = Q(state=LEASED, lease_expires_at__gte=at)
    others = Assignment.objects.filter(item=OuterRef("item_id")).exclude(person=person)
    taken = (
        others.filter(Q(committed=True) | live)
        .order_by()
        .values("item")
        .annotate(n=Count("pk"))
        .values("n")
    )
    rows = (
        ItemOrder.objects.filter(campaign=campaign, person=person)
        .exclude(
            Exists(
                Assignment.objects.filter(
                    item=OuterRef("item_id"), person=person, state=Assignment.State.DONE
                )
            )
        )
        .exclude(Exists(others.filter(live)))
        .annotate(taken=Coalesce(Subquery(taken), Value(0)))
        .filter(taken__lt=campaign.per_item)
        .select_related("item")
        .order_by("key")  # the index order; SHA-256 keys of distinct samples do not tie
    )
    if connection.features.has_select_for_update_skip_locked:
        rows = rows.select_for_update(skip_locked=True, of=("item",))
    return rows


def _lease_locked_item(campaign: Campaign, person, item_id: int, at) -> Assignment | None:
    """With the item's row locked: re-read its assignments (a fresh statement sees what
    committed meanwhile), end expired leases, re-check every rule, lease it."""
    rows = list(Assignment.objects.filter(item_id=item_id))
    mine = next((a for a in rows if a.person_id == person.pk), None)
    others = [a for a in rows if a.person_id != person.pk]
    expired = [a.pk for a in others if a.state == LEASED and a.lease_expires_at < at]
    if expired:
        Assignment.objects.filter(pk__in=expired, state=LEASED, lease_expires_at__lt=at).update(
            state=Assignment.State.EXPIRED, lease_expires_at=None
        )
    holders = [a for a in others if a.state == LEASED and a.pk not in expired]
    counted = [a for a in others if a.committed or (a.state == LEASED and a.pk not in expired)]
    if holders or len(counted) >= campaign.per_item:
        return None
    if mine is not None and mine.state == Assignment.State.DONE:
        return None
    if mine is None:
        return Assignment.objects.create(
            campaign=campaign,
            item_id=item_id,
            person=person,
            token=secrets.token_urlsafe(32),
            state=LEASED,
            lease_expires_at=_expiry(campaign, at),
        )
    mine.state = LEASED
    mine.lease_expires_at = _expiry(campaign, at)
    mine.claims += 1
    mine.save(update_fields=["state", "lease_expires_at", "claims", "updated_at"])
    return mine


def _lock_item(item_id: int, *, skip_locked: bool) -> bool:
    rows = CampaignItem.objects.filter(pk=item_id)
    if connection.features.has_select_for_update_skip_locked:
        rows = rows.select_for_update(skip_locked=skip_locked)
    return rows.values_list("pk", flat=True).first() is not None


def claim_next(*, campaign: Campaign, person) -> Assignment | None:
    """The person's current item, or their next free one, leased to them until
    ``lease_expires_at``; None when nothing is free for them now (all done, or the rest is held
    by others or full: see ``claimable_later``). Raises CampaignClosed, or PermissionError for a
    non-participant."""
    _check_open(campaign, person)
    for _ in range(2):  # a second round only after a concurrent claim of the same person
        try:
            with transaction.atomic():
                return _claim(campaign, person)
        except IntegrityError:
            # The same person claimed in parallel and got a lease first: that one is theirs.
            held = _mine(campaign, person).filter(state=LEASED).first()
            if held is not None:
                return held
    return _mine(campaign, person).filter(state=LEASED).first()


def _mine(campaign: Campaign, person):
    return Assignment.objects.filter(campaign=campaign, person=person)


def _claim(campaign: Campaign, person) -> Assignment | None:
    at = studio_services.now()
    # First what is already the person's: the item they hold (renewed; expired but not taken
    # over, taken back), then an item they submitted a part of and have not finished.
    owned = list(
        _mine(campaign, person)
        .filter(Q(state=LEASED) | Q(committed=True))
        .exclude(state=Assignment.State.DONE)
        .order_by("pk")
    )
    own = next((a for a in owned if a.state == LEASED), owned[0] if owned else None)
    if own is not None:
        if own.state == LEASED:
            _lock_item(own.item_id, skip_locked=False)
            own.refresh_from_db()
            if own.state == LEASED:
                own.lease_expires_at = _expiry(campaign, at)
                own.save(update_fields=["lease_expires_at", "updated_at"])
                return own
        elif _lock_item(own.item_id, skip_locked=True):
            resumed = _lease_locked_item(campaign, person, own.item_id, at)
            if resumed is not None:
                return resumed
    for _ in range(CLAIM_ROUNDS):
        order = _candidates(campaign, person, at).first()
        if order is None:
            return None
        assignment = _lease_locked_item(campaign, person, order.item_id, at)
        if assignment is not None:
            return assignment
    return None


def claimable_later(*, campaign: Campaign, person) -> int:
    """How many items the person may still get once others finish or their leases run out:
    allowed, not done by them, and committed to by fewer than ``per_item`` others. After
    ``claim_next`` answered None, 0 means the person is finished; more means "wait"."""
    committed = (
        Assignment.objects.filter(item=OuterRef("pk"), committed=True)
        .exclude(person=person)
        .order_by()
        .values("item")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return (
        CampaignItem.objects.filter(campaign=campaign, orders__person=person)
        .annotate(taken=Coalesce(Subquery(committed), Value(0)))
        .filter(taken__lt=campaign.per_item)
        .exclude(
            Exists(
                Assignment.objects.filter(
                    item=OuterRef("pk"), person=person, state=Assignment.State.DONE
                )
            )
        )
        .count()
    )


def renew(*, assignment: Assignment, person) -> bool:
    """Extend the person's lease (activity on the page); False when they no longer hold it."""
    at = studio_services.now()
    return (
        Assignment.objects.filter(
            pk=assignment.pk, person=person, state=LEASED, lease_expires_at__gte=at
        ).update(lease_expires_at=_expiry(assignment.campaign, at), updated_at=at)
        == 1
    )


def release(*, assignment: Assignment, person) -> bool:
    """Give the item back to the queue. A committed assignment (a part submitted) keeps its
    place and comes back to the person at their next claim."""
    return (
        Assignment.objects.filter(pk=assignment.pk, person=person, state=LEASED).update(
            state=Assignment.State.RELEASED, lease_expires_at=None, updated_at=studio_services.now()
        )
        == 1
    )


# --- drafts, submissions ------------------------------------------------------------------------


def parts_done(assignment: Assignment) -> list[str]:
    """The parts with a submission, in the kind's order."""
    kind = campaign_kind(assignment.campaign.kind)
    done = set(
        Submission.objects.filter(assignment=assignment, supersedes__isnull=True).values_list(
            "part", flat=True
        )
    )
    return [part for part in kind.parts if part in done]


def _check_part(kind: CampaignKind, part: str) -> None:
    if part not in kind.parts:
        names = ", ".join(repr(p) for p in kind.parts)
        raise ValidationError({"part": f"Unknown part {part!r} (this kind has {names})."})


def _lock_own(assignment: Assignment, person) -> Assignment:
    locked = (
        Assignment.objects.select_for_update()
        .select_related("campaign")
        .filter(pk=assignment.pk, person=person)
        .first()
    )
    if locked is None:
        raise PermissionError("Not your assignment.")
    if not locked.campaign.is_open:
        raise CampaignClosed(f"Campaign {locked.campaign.name} is closed.")
    return locked


@transaction.atomic
def save_draft(*, assignment: Assignment, person, part: str, payload: Mapping) -> dict:
    """Autosave the person's draft of ``part`` (a JSON object). Saved even when the lease was
    lost, so nothing typed is lost; renews the lease when it is still held. Returns
    ``{"saved_at", "lease_held"}``."""
    assignment = _lock_own(assignment, person)
    kind = campaign_kind(assignment.campaign.kind)
    _check_part(kind, part)
    if not isinstance(payload, Mapping):
        raise ValidationError({"payload": "Must be an object."})
    if len(json.dumps(payload, ensure_ascii=False).encode("utf-8")) > DRAFT_MAX_BYTES:
        raise ValidationError({"payload": f"A draft holds at most {DRAFT_MAX_BYTES} bytes."})
    if kind.validate_draft is not None:
        payload = kind.validate_draft(assignment=assignment, part=part, payload=payload)
    at = studio_services.now()
    assignment.draft = {**assignment.draft, part: dict(payload)}
    assignment.draft_saved_at = at
    fields = ["draft", "draft_saved_at", "updated_at"]
    held = assignment.state == LEASED and assignment.lease_expires_at >= at
    if held:
        assignment.lease_expires_at = _expiry(assignment.campaign, at)
        fields.append("lease_expires_at")
    assignment.save(update_fields=fields)
    return {"saved_at": at, "lease_held": held}


@transaction.atomic
def submit(*, assignment: Assignment, person, part: str, payload: Mapping) -> Submission:
    """Submit ``part`` (the next one the assignment lacks) with the kind's validation. The
    person must still hold the lease (an expired lease nobody took over still counts). The last
    part makes the assignment done and frees the person for their next item."""
    assignment = _lock_own(assignment, person)
    kind = campaign_kind(assignment.campaign.kind)
    _check_part(kind, part)
    if assignment.state != LEASED:
        raise LeaseLost("Your claim on this item ended; your draft is kept. Claim again.")
    expected = kind.next_part(parts_done(assignment))
    if part != expected:
        if part in parts_done(assignment):
            raise ValidationError({"part": f"Part {part!r} is submitted; supersede it instead."})
        raise ValidationError({"part": f"Submit part {expected!r} first."})
    cleaned = kind.validate(assignment=assignment, part=part, payload=payload)
    at = studio_services.now()
    submission = Submission.objects.create(
        assignment=assignment,
        campaign_id=assignment.campaign_id,
        item_id=assignment.item_id,
        person=person,
        part=part,
        payload=cleaned,
        created_at=at,
    )
    assignment.committed = True
    assignment.draft = {k: v for k, v in assignment.draft.items() if k != part}
    if part == kind.parts[-1]:
        assignment.state = Assignment.State.DONE
        assignment.lease_expires_at = None
        assignment.done_at = at
    else:
        assignment.lease_expires_at = _expiry(assignment.campaign, at)
    assignment.save(
        update_fields=["committed", "draft", "state", "lease_expires_at", "done_at", "updated_at"]
    )
    return submission


@transaction.atomic
def supersede(*, submission: Submission, person, payload: Mapping, reason: str = "") -> Submission:
    """A change of mind before the campaign closes: a new submission of the same part that
    supersedes ``submission`` (which must be the current one). Both are kept."""
    assignment = _lock_own(submission.assignment, person)
    current = Submission.objects.filter(pk=submission.pk, superseded_by__isnull=True).first()
    if current is None:
        raise ValidationError({"submission": "Already superseded; change the latest one."})
    kind = campaign_kind(assignment.campaign.kind)
    cleaned = kind.validate(assignment=assignment, part=current.part, payload=payload)
    return Submission.objects.create(
        assignment=assignment,
        campaign_id=assignment.campaign_id,
        item_id=assignment.item_id,
        person=person,
        part=current.part,
        payload=cleaned,
        supersedes=current,
        reason=reason,
        created_at=studio_services.now(),
    )


def current_submission(*, assignment: Assignment, part: str) -> Submission | None:
    """The latest submission of ``part`` (the end of its supersession chain)."""
    return (
        Submission.objects.filter(assignment=assignment, part=part, superseded_by__isnull=True)
        .order_by("-id")
        .first()
    )


def current_submissions(*, campaign: Campaign):
    """Every submission of the campaign that nothing supersedes: what counts."""
    return Submission.objects.filter(campaign=campaign, superseded_by__isnull=True)


# --- exposure ---------------------------------------------------------------------------------


def record_exposure(
    *,
    assignment: Assignment,
    part: str,
    grants: Iterable[str] = (),
    fields: Iterable[str] = (),
) -> Exposure:
    """Append what the server is about to show the assignment's person for its item: the part
    (phase), the media grants (their ids or labels) and the field names. Call it from the page or
    API view that renders them, before the response is sent."""
    return Exposure.objects.create(
        assignment=assignment,
        campaign_id=assignment.campaign_id,
        item_id=assignment.item_id,
        person_id=assignment.person_id,
        part=part,
        grants=[str(g) for g in grants],
        fields=[str(f) for f in fields],
        created_at=studio_services.now(),
    )


# --- progress ---------------------------------------------------------------------------------


def progress(*, campaign: Campaign) -> dict:
    """Counts per person and overall (JSON-ready; what ``campaign_status --json`` prints)."""
    at = studio_services.now()
    items = CampaignItem.objects.filter(campaign=campaign).count()
    assignments = Assignment.objects.filter(campaign=campaign)
    done_by = dict(
        assignments.filter(state=Assignment.State.DONE)
        .values("person")
        .annotate(n=Count("pk"))
        .values_list("person", "n")
    )
    live = assignments.filter(state=LEASED, lease_expires_at__gte=at)
    leased_by = dict(live.values("person").annotate(n=Count("pk")).values_list("person", "n"))
    eligible_by = dict(
        ItemOrder.objects.filter(campaign=campaign)
        .values("person")
        .annotate(n=Count("pk"))
        .values_list("person", "n")
    )
    excluded_by = dict(
        Exclusion.objects.filter(campaign=campaign)
        .values("person")
        .annotate(n=Count("pk"))
        .values_list("person", "n")
    )
    complete_items = (
        assignments.filter(state=Assignment.State.DONE)
        .values("item")
        .annotate(n=Count("pk"))
        .filter(n__gte=campaign.per_item)
        .count()
    )
    done = sum(done_by.values())
    needed = items * campaign.per_item
    people = []
    for person in get_user_model().objects.filter(campaigns=campaign).order_by("username"):
        people.append(
            {
                "person": person.username,
                "person_id": person.pk,
                "done": done_by.get(person.pk, 0),
                "leased": leased_by.get(person.pk, 0),
                "eligible": eligible_by.get(person.pk, 0),
                "excluded": excluded_by.get(person.pk, 0),
            }
        )
    return {
        "campaign": campaign.name,
        "kind": campaign.kind,
        "state": campaign.state,
        "manifest": campaign.manifest.name,
        "items": items,
        "per_item": campaign.per_item,
        "needed": needed,
        "done": done,
        "leased": sum(leased_by.values()),
        "complete_items": complete_items,
        "fraction_done": (done / needed) if needed else 0.0,
        "people": people,
    }

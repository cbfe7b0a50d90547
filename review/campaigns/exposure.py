"""The one exposure rule across campaigns: nobody answers a step blind after seeing its references,
and nobody sees a step's references while they still have it to answer blind.

Two sides, declared by the campaign kinds (``review.campaigns.kinds.CampaignKind``):

- **blind work**: a kind with ``answers_blind`` (the human baseline) asks for a step's answers
  without its references. A person has a step **still to do blind** while they take part in an
  open campaign of such a kind, the step is one of their items there (an ``ItemOrder``: not
  excluded), they have not finished it, and it can still come to them (fewer than ``per_item``
  others committed to it).
- **references**: a kind with ``shows_references`` (the audit, judge validation, the boundary
  audit, QA review) shows them on its item page; outside campaign items the adjudication pages
  and the annotation workspace show them. The exposure log (``models.Exposure``) says what each
  person was **shown**: an item page of a reference kind, an adjudication page, a workspace
  answer (``step_uid``).

A step is named by its uid (a release step's ``sample_id``, the live step's ``uid``: the same
across releases). A kind says which steps an item is about (``item_steps``; a QA group: every
release step of its video whose span it overlaps).

The rule is applied at four places, all through this module:

1. ``campaign_create`` records an ``Exclusion`` per person and step with the reason (shown by
   ``campaign_status``): in a blind campaign for steps whose references the person was shown,
   in a reference campaign for steps the person still has to do blind;
2. a claim never leases such an item (``blocked_items``), whenever the campaign was created;
3. a kind's item page refuses its state for such an item (``refusal``);
4. the adjudication pages and the workspace refuse such steps (``staff_refusal``,
   ``withheld_video_ids``) and log what they show (``references_shown``).
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Count, Exists, F, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce

from review.campaigns.kinds import CampaignKind, campaign_kind, campaign_kinds, sample_steps
from review.campaigns.models import Assignment, Campaign, CampaignItem, Exposure, ItemOrder

ADJUDICATION = "adjudication"
WORKSPACE = "workspace"
REFERENCE_FIELDS = ("local_intent", "procedural_intent", "next_step", "plausible_next_steps")


def _kind_names(flag: str) -> list[str]:
    return [k.name for k in campaign_kinds() if getattr(k, flag)]


def _steps_of(items_by_kind: dict[str, list]) -> dict[int, set]:
    out: dict[int, set] = {}
    for kind_name, items in items_by_kind.items():
        out.update(campaign_kind(kind_name).item_steps(items))
    return out


# --- the two sides, per person ----------------------------------------------------------------


def blind_pending_steps(person, *, exclude_campaign_id: int | None = None) -> dict:
    """The steps the person still has to do blind: step uid -> the campaign's name."""
    blind = _kind_names("answers_blind")
    campaigns = Campaign.objects.filter(people=person, kind__in=blind, state=Campaign.State.OPEN)
    if exclude_campaign_id is not None:
        campaigns = campaigns.exclude(pk=exclude_campaign_id)
    if not blind or not campaigns.exists():
        return {}
    committed_by_others = (
        Assignment.objects.filter(item=OuterRef("item_id"), committed=True)
        .exclude(person=person)
        .order_by()
        .values("item")
        .annotate(n=Count("pk"))
        .values("n")
    )
    orders = (
        ItemOrder.objects.filter(person=person, campaign__in=campaigns)
        .exclude(
            Exists(
                Assignment.objects.filter(
                    item=OuterRef("item_id"), person=person, state=Assignment.State.DONE
                )
            )
        )
        .annotate(taken=Coalesce(Subquery(committed_by_others), Value(0)))
        .filter(taken__lt=F("campaign__per_item"))
        .select_related("item__sample", "campaign")
    )
    by_kind: dict[str, list] = {}
    names: dict[int, str] = {}
    for order in orders:
        by_kind.setdefault(order.campaign.kind, []).append(order.item)
        names[order.item_id] = order.campaign.name
    out: dict = {}
    for item_id, steps in _steps_of(by_kind).items():
        for step in steps:
            out.setdefault(step, names[item_id])
    return out


def shown_steps(person) -> dict:
    """The steps whose reference answers the person was shown: step uid -> where (a campaign's
    name, or the page), from the exposure log."""
    references = _kind_names("shows_references")
    rows = (
        Exposure.objects.filter(person=person)
        .filter(Q(campaign__kind__in=references) | Q(step_uid__isnull=False))
        .order_by()
        .values_list("step_uid", "item_id", "source", "campaign__kind", "campaign__name")
        .distinct()
    )
    out: dict = {}
    item_ids: dict[str, set] = {}
    where: dict[int, str] = {}
    for step_uid, item_id, source, kind, campaign_name in rows:
        if step_uid is not None:
            out.setdefault(step_uid, source if not campaign_name else f"{source}, {campaign_name}")
        elif item_id is not None:
            item_ids.setdefault(kind, set()).add(item_id)
            # an item page says the campaign; a page outside it (adjudication) says which too
            where[item_id] = campaign_name if source in ("", kind) else f"{source}, {campaign_name}"
    if item_ids:
        every = {i for ids in item_ids.values() for i in ids}
        loaded = CampaignItem.objects.filter(pk__in=every).select_related("sample")
        by_id = {item.pk: item for item in loaded}
        by_kind = {k: [by_id[i] for i in ids if i in by_id] for k, ids in item_ids.items()}
        for item_id, steps in _steps_of(by_kind).items():
            for step in steps:
                out.setdefault(step, where[item_id])
    return out


# --- what a person may be given ---------------------------------------------------------------


# The reasons, as an exclusion records them and as a page tells the person.
SHOWN = "was shown this step's reference answers ({})"
PENDING = "still answers this step blind ({})"
TO_PERSON = {SHOWN: "you were shown this step's reference answers ({})",
             PENDING: "you still answer this step blind ({})"}  # fmt: skip


def _conflicts(kind: CampaignKind, person, campaign_id: int | None) -> tuple[dict, str]:
    """The steps the person may not take in a campaign of ``kind``, and the reason's wording."""
    if kind.answers_blind:
        return shown_steps(person), SHOWN
    if kind.shows_references:
        return blind_pending_steps(person, exclude_campaign_id=campaign_id), PENDING
    return {}, ""


def _items_on(kind: CampaignKind, items, steps: dict, reason: str) -> dict[int, str]:
    out = {}
    for item_id, item_steps in kind.item_steps(items).items():
        hit = next((s for s in sorted(item_steps, key=str) if s in steps), None)
        if hit is not None:
            out[item_id] = reason.format(steps[hit])
    return out


def blocked_items(*, campaign: Campaign, person) -> dict[int, str]:
    """Items of the campaign the person may not be given now: item id -> reason."""
    kind = campaign_kind(campaign.kind)
    steps, reason = _conflicts(kind, person, campaign.pk)
    if not steps:
        return {}
    items = CampaignItem.objects.filter(campaign=campaign).select_related("sample")
    if kind.item_steps is sample_steps:  # one step per item: let the database pick them
        items = items.filter(sample__sample_id__in=list(steps))
    return _items_on(kind, list(items), steps, reason)


def exclusions(*, campaign: Campaign, items, people) -> Iterable[tuple[int, int, str]]:
    """``(person_id, item_id, reason)`` for ``campaign_create``: the exposure rule's exclusions,
    beside the kind's own."""
    kind = campaign_kind(campaign.kind)
    for person in people:
        steps, reason = _conflicts(kind, person, campaign.pk)
        if steps:
            for item_id, why in _items_on(kind, items, steps, reason).items():
                yield person.pk, item_id, why


def refusal(assignment) -> str | None:
    """Why the assignment's page may not show its item to its person now (None: it may)."""
    kind = campaign_kind(assignment.campaign.kind)
    steps, reason = _conflicts(kind, assignment.person, assignment.campaign_id)
    if not steps:
        return None
    blocked = _items_on(kind, [assignment.item], steps, TO_PERSON[reason])
    if assignment.item_id not in blocked:
        return None
    return f"This item is not for you now: {blocked[assignment.item_id]}."


# --- pages outside campaign items ---------------------------------------------------------------


def staff_refusal(person, *, item: CampaignItem) -> str | None:
    """Why a page outside the campaign (adjudication) may not show this item's references to
    the person now, or None."""
    pending = blind_pending_steps(person)
    if not pending:
        return None
    kind = campaign_kind(item.campaign.kind)
    hit = _items_on(kind, [item], pending, TO_PERSON[PENDING])
    if item.pk not in hit:
        return None
    return f"Not for you now: {hit[item.pk]}; its references open once you are through."


def references_shown(person, *, item: CampaignItem | None = None, steps=(), source: str) -> None:
    """Log that a page outside campaign items showed reference answers: of a campaign item
    (adjudication), or of live steps by uid (the workspace; each step logged once per person)."""
    from studio.services import now

    at = now()
    if item is not None:
        Exposure.objects.create(
            campaign_id=item.campaign_id, item=item, person=person, source=source,
            fields=list(REFERENCE_FIELDS), created_at=at,
        )  # fmt: skip
        return
    rows = [
        Exposure(person=person, source=source, step_uid=uid, fields=list(REFERENCE_FIELDS),
                 created_at=at)
        for uid in sorted(set(steps), key=str)
    ]  # fmt: skip
    if rows:  # the first showing of each step counts; later ones meet exposure_step_once
        Exposure.objects.bulk_create(rows, ignore_conflicts=True)


def withheld_video_ids(person) -> set[int]:
    """Videos whose workspace the person may not open now: a step on them is still theirs to
    answer blind."""
    pending = blind_pending_steps(person)
    if not pending:
        return set()
    from annotation.models import MicroStep

    return set(MicroStep.objects.filter(uid__in=list(pending)).values_list("video_id", flat=True))


def workspace_shown(user, steps) -> None:
    """The workspace's hook: it showed these live steps' labels to ``user``."""
    if user.is_authenticated:
        references_shown(user, steps=[s.uid for s in steps], source=WORKSPACE)

"""A campaign's progress per person and overall (what ``campaign_status`` prints and the admin's
live page polls), with each person's exclusions counted by reason."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Count

from review.campaigns.models import Assignment, Campaign, CampaignItem, Exclusion, ItemOrder
from studio import services as studio_services

LEASED = Assignment.State.LEASED


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
    excluded_by: dict[int, int] = {}
    reasons_by: dict[int, dict[str, int]] = {}
    for person_id, reason, n in (
        Exclusion.objects.filter(campaign=campaign)
        .values("person", "reason")
        .annotate(n=Count("pk"))
        .order_by("person", "reason")
        .values_list("person", "reason", "n")
    ):
        excluded_by[person_id] = excluded_by.get(person_id, 0) + n
        reasons_by.setdefault(person_id, {})[reason] = n
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
                "exclusions": reasons_by.get(person.pk, {}),
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

"""Reads of a campaign's audit records: the current decisions per (item, criterion), their
resolution, the adjudication queue and the report's inputs. One query per table, so a 756-item
campaign with three reviewers reads in a few milliseconds."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from review.audit.criteria import CRITERION_IDS
from review.audit.resolution import NEEDS_ADJUDICATION, Resolution, resolve


@dataclass
class Decision:
    person_id: int
    criterion: str
    label: str
    comment: str = ""
    error_types: list[str] = field(default_factory=list)


@dataclass
class ItemRecord:
    item_id: int
    decisions: dict[str, list[Decision]] = field(default_factory=lambda: defaultdict(list))
    adjudications: dict[str, str] = field(default_factory=dict)

    def labels(self, criterion: str) -> list[str]:
        return [d.label for d in self.decisions.get(criterion, ())]

    def resolution(self, criterion: str, required: int) -> Resolution:
        return resolve(
            self.labels(criterion),
            required=required,
            adjudication=self.adjudications.get(criterion),
        )


def campaign_records(campaign, *, item_ids=None) -> dict[int, ItemRecord]:
    """Every item of the campaign with its current decisions and adjudications (by item id)."""
    from review.audit.models import Adjudication
    from review.campaigns.models import CampaignItem, Submission

    items = CampaignItem.objects.filter(campaign=campaign)
    subs = Submission.objects.filter(campaign=campaign, superseded_by__isnull=True)
    adjs = Adjudication.objects.filter(campaign=campaign, superseded_by__isnull=True)
    if item_ids is not None:
        items = items.filter(pk__in=item_ids)
        subs = subs.filter(item_id__in=item_ids)
        adjs = adjs.filter(item_id__in=item_ids)
    records = {pk: ItemRecord(pk) for pk in items.values_list("pk", flat=True)}
    rows = subs.order_by("person_id", "id").values_list("item_id", "person_id", "payload")
    for item_id, person_id, payload in rows.iterator(chunk_size=2000):
        record = records.get(item_id)
        if record is None:
            continue
        for cid, answer in (payload or {}).get("criteria", {}).items():
            if cid in CRITERION_IDS and answer.get("label"):
                record.decisions[cid].append(
                    Decision(
                        person_id,
                        cid,
                        answer["label"],
                        answer.get("comment", ""),
                        list(answer.get("error_types", [])),
                    )
                )
    for item_id, cid, label in adjs.values_list("item_id", "criterion", "label"):
        if item_id in records:
            records[item_id].adjudications[cid] = label
    return records


def needs_adjudication(record: ItemRecord, required: int) -> list[str]:
    """The criteria of an item still waiting for an adjudicator."""
    return [
        cid for cid in CRITERION_IDS if record.resolution(cid, required).state == NEEDS_ADJUDICATION
    ]


def adjudication_queue(campaign) -> list[tuple[int, list[str]]]:
    """(item id, criteria waiting) for every item with at least one, in item order."""
    records = campaign_records(campaign)
    queue = []
    for item_id in sorted(records):
        waiting = needs_adjudication(records[item_id], campaign.per_item)
        if waiting:
            queue.append((item_id, waiting))
    return queue


def reviewer_letters(record: ItemRecord) -> dict[int, str]:
    """Reviewers of an item named A, B, C… in the order of their person id (stable, and tells the
    adjudicator nothing about who they are)."""
    people = sorted({d.person_id for ds in record.decisions.values() for d in ds})
    return {pk: chr(ord("A") + i) for i, pk in enumerate(people)}

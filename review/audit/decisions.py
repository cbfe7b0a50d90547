"""Reads of a campaign's audit records: the current decisions per (item, key), their resolution,
the adjudication queue and the report's inputs. One query per table, so a 756-item campaign with
three reviewers reads in a few milliseconds.

A *scheme* says what a kind's decisions are keyed by: the audit's criteria C1 … C7 under the
payload's ``criteria``, the boundary audit's four windows under ``windows``
(``review.boundary``). Resolution and adjudication are the same for every scheme."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from review.audit.criteria import CRITERION_IDS
from review.audit.resolution import NEEDS_ADJUDICATION, Resolution, resolve


@dataclass(frozen=True)
class Scheme:
    """What a kind's decisions are keyed by.

    - ``keys``: the keys in their fixed order (criteria, windows);
    - ``answers``: the payload field holding ``{key: {"label", "comment", …}}``;
    - ``key_field``: what the import format and the pages call a key (``criterion``, ``window``);
    - ``part_of(key)``: the campaign part a key is submitted in;
    - ``parts``: every part, in order;
    - ``error_codes(campaign)``: per key, the error codes an Invalid of it may carry;
    - ``error_types``: whether answers carry error types at all."""

    keys: tuple[str, ...]
    answers: str
    key_field: str
    parts: tuple[str, ...]
    part_of: Callable[[str], str]
    error_codes: Callable[[object], dict[str, tuple[str, ...]]] = lambda campaign: {}
    error_types: bool = True


def _audit_part(cid: str) -> str:
    from review.audit.criteria import BY_ID
    from review.audit.kind import PART_OF_PHASE

    return PART_OF_PHASE[BY_ID[cid].phase]


def _audit_codes(campaign) -> dict[str, tuple[str, ...]]:
    from review.audit.kind import criterion_error_codes

    return criterion_error_codes(campaign)


AUDIT = Scheme(
    keys=CRITERION_IDS,
    answers="criteria",
    key_field="criterion",
    parts=("phase1", "phase2"),
    part_of=_audit_part,
    error_codes=_audit_codes,
)


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


def campaign_records(campaign, *, item_ids=None, scheme: Scheme = AUDIT) -> dict[int, ItemRecord]:
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
        for cid, answer in (payload or {}).get(scheme.answers, {}).items():
            if cid in scheme.keys and answer.get("label"):
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


def needs_adjudication(record: ItemRecord, required: int, scheme: Scheme = AUDIT) -> list[str]:
    """The keys (criteria, windows) of an item still waiting for an adjudicator."""
    return [
        cid for cid in scheme.keys if record.resolution(cid, required).state == NEEDS_ADJUDICATION
    ]


def adjudication_queue(campaign, scheme: Scheme = AUDIT) -> list[tuple[int, list[str]]]:
    """(item id, keys waiting) for every item with at least one, in item order."""
    records = campaign_records(campaign, scheme=scheme)
    queue = []
    for item_id in sorted(records):
        waiting = needs_adjudication(records[item_id], campaign.per_item, scheme)
        if waiting:
            queue.append((item_id, waiting))
    return queue


def reviewer_letters(record: ItemRecord) -> dict[int, str]:
    """Reviewers of an item named A, B, C… in the order of their person id (stable, and tells the
    adjudicator nothing about who they are)."""
    people = sorted({d.person_id for ds in record.decisions.values() for d in ds})
    return {pk: chr(ord("A") + i) for i, pk in enumerate(people)}

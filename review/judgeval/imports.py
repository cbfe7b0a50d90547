"""Ratings made elsewhere in and out as JSON Lines (docs/judge-validation.md, "Import format").

One object per line, a rater's scores of one triplet::

    {"rater": USER, "step": UID, "run": PREDICTION_RUN, "local": 0-100, "procedural": 0-100,
     "next": 0-100, "reason": CODE?}

The whole file is checked first (read with ``studio.jsonl``, the one reader of every import);
any problem refuses all of it, the first 100 problems listed by line number, then how many
more. A rater gives both triplets of a step (the two parts of their assignment); each lands as
the submission of its part in the rater's order (a new one superseding the current one, both
kept).
"""

from __future__ import annotations

import secrets
from collections import defaultdict
from collections.abc import Iterable, Iterator

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction

from review.judgeval.kind import DIMENSIONS, PARTS, clean_scores, slot_order
from review.judgeval.selectors import campaign_ratings
from studio.jsonl import ImportRefused, Problems, chunks, numbered
from studio.services import now

KEYS = {"rater", "step", "run", "local", "procedural", "next", "reason"}

__all__ = ["ImportRefused", "ratings_export", "ratings_load"]


def _check_line(record) -> str | None:
    if not isinstance(record, dict):
        return "not a JSON object"
    extra = sorted(set(record) - KEYS)
    if extra:
        return f"unknown field(s) {', '.join(extra)}"
    for key in ("rater", "step", "run"):
        if not isinstance(record.get(key), str) or not record[key].strip():
            return f"{key} is missing (a text)"
    try:
        clean_scores({k: record.get(k) for k in (*DIMENSIONS, "reason")}, complete=True)
    except ValidationError as exc:
        return "; ".join(f"{k}: {' '.join(m for e in v for m in e.messages)}"
                         for k, v in exc.error_dict.items())  # fmt: skip
    if any(isinstance(record.get(d), str) for d in DIMENSIONS):
        return "scores are JSON integers from 0 to 100"
    return None


def ratings_load(
    *, campaign, lines: Iterable, source: str = "", problems: Problems | None = None
) -> dict:
    """Validate every line, then write them all in one transaction. ``lines`` holds parsed
    objects or ``(number, object)`` pairs (``studio.jsonl.json_lines``, whose own problems go
    to the same ``problems``). Returns counts; raises ImportRefused. Lines are checked a
    thousand at a time; the good ones kept are bounded by the campaign (one per rater, step
    and run)."""
    from review.campaigns.models import Assignment, CampaignItem, Exclusion
    from review.judgeval.models import JudgeTriplet

    problems = Problems() if problems is None else problems
    users = get_user_model().objects
    by_name: dict = {}  # the users named so far that exist
    people = set(campaign.people.values_list("pk", flat=True))
    items = {
        str(sid): pk
        for pk, sid in CampaignItem.objects.filter(campaign=campaign).values_list(
            "pk", "sample__sample_id"
        )
    }
    slots = {
        (str(sid), run): slot
        for sid, run, slot in JudgeTriplet.objects.filter(manifest=campaign.manifest).values_list(
            "sample__sample_id", "run_name", "slot"
        )
    }
    excluded = set(Exclusion.objects.filter(campaign=campaign).values_list("person_id", "item_id"))
    good = []
    seen = set()
    for chunk in chunks(numbered(lines)):
        names = {rec.get("rater") for _, rec in chunk if isinstance(rec, dict)}
        names = {n for n in names if isinstance(n, str)} - by_name.keys()
        by_name |= {u.username: u for u in users.filter(username__in=names)}
        for number, record in chunk:
            problem = _check_line(record)
            if problem is None:
                user = by_name.get(record["rater"])
                step = record["step"].strip().lower()
                item_id = items.get(step)
                key = (record["rater"], step, record["run"])
                if user is None:
                    problem = f"unknown user {record['rater']!r}"
                elif item_id is None:
                    problem = f"step {record['step']} is not in the campaign's manifest"
                elif (step, record["run"]) not in slots:
                    problem = f"run {record['run']} has no triplet of step {record['step']}"
                elif user.pk not in people:
                    problem = f"rater {record['rater']} is not in campaign {campaign.name}"
                elif (user.pk, item_id) in excluded:
                    problem = f"rater {record['rater']} may not rate this step (they annotated it)"
                elif key in seen:
                    problem = "the same rater, step and run appear twice"
                else:
                    seen.add(key)
                    good.append((number, record, user, item_id, slots[(step, record["run"])]))
            if problem is not None:
                problems.add(number, problem)
    if not problems:
        for number, message in _check_pairs_and_counts(campaign, good, Assignment):
            problems.add(number, message)
    if not good and not problems:
        problems.add(None, "the file holds no line to import")
    problems.refuse()
    return _write(campaign, good, source=source)


def _check_pairs_and_counts(campaign, good, Assignment) -> list[tuple[int, str]]:
    problems = []
    per_step = defaultdict(list)
    for entry in good:
        per_step[(entry[2].pk, entry[3])].append(entry)
    for entries in per_step.values():
        if len(entries) != 2:
            number, record = entries[0][0], entries[0][1]
            problems.append(
                (
                    number,
                    f"rater {record['rater']} gives one triplet of step {record['step']}; "
                    "give both",
                )
            )
    raters = defaultdict(set)
    for item_id, person_id in Assignment.objects.filter(
        campaign=campaign, committed=True
    ).values_list("item_id", "person_id"):
        raters[item_id].add(person_id)
    for number, record, user, item_id, _slot in good:
        raters[item_id].add(user.pk)
        if len(raters[item_id]) > campaign.per_item:
            problems.append(
                (number, f"step {record['step']} would get more than {campaign.per_item} raters")
            )
    return sorted(set(problems))


@transaction.atomic
def _write(campaign, good, *, source: str) -> dict:
    from review.campaigns.models import Assignment, Submission
    from review.campaigns.services import current_submission

    at = now()
    reason = f"imported{' from ' + source if source else ''}"
    written = 0
    for number, record, user, item_id, slot in sorted(good, key=lambda g: g[0]):
        del number
        assignment = Assignment.objects.filter(item_id=item_id, person=user).first()
        if assignment is None:
            assignment = Assignment.objects.create(
                campaign=campaign,
                item_id=item_id,
                person=user,
                token=secrets.token_urlsafe(32),
                state=Assignment.State.RELEASED,
                committed=True,
                claims=0,
            )
        order = slot_order(user.pk, record["step"].strip().lower(), campaign.seed)
        part = PARTS[order.index(slot)]
        current = current_submission(assignment=assignment, part=part)
        payload = clean_scores({k: record.get(k) for k in (*DIMENSIONS, "reason")}, complete=True)
        Submission.objects.create(
            assignment=assignment,
            campaign=campaign,
            item_id=item_id,
            person=user,
            part=part,
            payload=payload,
            supersedes=current,
            reason=reason if current else "",
            created_at=at,
        )
        written += 1
        fields = {"committed": True}
        done = set(
            Submission.objects.filter(
                assignment=assignment, superseded_by__isnull=True
            ).values_list("part", flat=True)
        )
        if done >= set(PARTS):
            fields |= {
                "state": Assignment.State.DONE,
                "lease_expires_at": None,
                "done_at": assignment.done_at or at,
            }
        Assignment.objects.filter(pk=assignment.pk).update(**fields)
    return {"ratings": written, "steps": len({(g[2].pk, g[3]) for g in good})}


def ratings_export(*, campaign) -> Iterator[dict]:
    """The current ratings in the import format (by step, run, rater); the import reads it."""
    for r in campaign_ratings(campaign=campaign):
        line = {k: r[k] for k in ("rater", "step", "run", *DIMENSIONS)}
        if r["reason"]:
            line["reason"] = r["reason"]
        yield line

"""Baseline responses collected elsewhere, in and out as JSON Lines (docs/baseline.md).

One object per rater and step::

    {"rater": USER, "step": UID,
     "local":      {"answerable": true, "answers": ["…"], "confidence": 4},
     "procedural": {"answerable": true, "answers": ["…"], "confidence": 3},
     "next":       {"answerable": true, "answers": ["…", "…"], "confidence": 2},
     "seconds": 38.5}                                   # optional
    {"rater": USER, "step": UID, "broken": true, "note": "…"}   # a broken item

The whole file is checked first (read with ``studio.jsonl``, the one reader of every import);
any problem refuses all of it, the first 100 problems listed by line number, then how many
more; then everything is written in one transaction. A line becomes the rater's submission
of the item (superseding their current one, which is kept).
"""

from __future__ import annotations

import secrets
from collections import defaultdict
from collections.abc import Iterable, Iterator

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction

from review.baseline.kind import KIND, PART
from review.baseline.responses import DIMENSIONS, clean_response
from studio.jsonl import ImportRefused, Problems, chunks, numbered
from studio.services import now

__all__ = ["ImportRefused", "response_line", "responses_export", "responses_load"]

LINE_KEYS = {"rater", "step", "broken", "note", "seconds", *DIMENSIONS}


def _messages(exc: ValidationError) -> str:
    if hasattr(exc, "error_dict"):
        return "; ".join(
            f"{key}: {' '.join(m for e in errs for m in e.messages)}"
            for key, errs in sorted(exc.error_dict.items())
        )
    return "; ".join(exc.messages)


def _check_line(record) -> tuple[str | None, dict | None]:
    if not isinstance(record, dict):
        return "not a JSON object", None
    extra = sorted(set(record) - LINE_KEYS)
    if extra:
        return f"unknown field(s) {', '.join(map(str, extra))}", None
    for key in ("rater", "step"):
        if not isinstance(record.get(key), str) or not record[key].strip():
            return f"{key} is missing (a text)", None
    seconds = record.get("seconds")
    if seconds is not None and (
        isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds < 0
    ):
        return "seconds must be a number of at least 0", None
    payload = {"broken": record.get("broken", False)}
    if "note" in record:
        payload["note"] = record["note"]
    present = [d for d in DIMENSIONS if d in record]
    if payload["broken"] is True and present:
        return "a broken item takes no answers", None
    if present or payload["broken"] is not True:
        payload["dimensions"] = {d: record[d] for d in present}
    try:
        cleaned = clean_response(payload, complete=True)
    except ValidationError as exc:
        return _messages(exc), None
    cleaned["seconds"] = float(seconds) if seconds is not None else None
    return None, cleaned


def responses_load(
    *, campaign, lines: Iterable, source: str = "", problems: Problems | None = None
) -> dict:
    """Validate every line, then write them all in one transaction. ``lines`` holds parsed
    objects or ``(number, object)`` pairs (``studio.jsonl.json_lines``, whose own problems go
    to the same ``problems``). Returns counts; raises ImportRefused. Lines are checked a
    thousand at a time; the good ones kept are bounded by the campaign (one per rater and
    step)."""
    from review.campaigns.models import CampaignItem, Exclusion

    if campaign.kind != KIND:
        raise ImportRefused(f"campaign {campaign.name} is not a human baseline")
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
    excluded = set(Exclusion.objects.filter(campaign=campaign).values_list("person_id", "item_id"))
    good, seen = [], set()
    for chunk in chunks(numbered(lines)):
        names = {rec.get("rater") for _, rec in chunk if isinstance(rec, dict)}
        names = {n for n in names if isinstance(n, str)} - by_name.keys()
        by_name |= {u.username: u for u in users.filter(username__in=names)}
        for number, record in chunk:
            problem, cleaned = _check_line(record)
            if problem is None:
                user = by_name.get(record["rater"])
                item_id = items.get(record["step"].strip().lower())
                if user is None:
                    problem = f"unknown user {record['rater']!r}"
                elif item_id is None:
                    problem = f"step {record['step']} is not in the campaign's manifest"
                elif user.pk not in people:
                    problem = f"rater {user.username} is not in campaign {campaign.name}"
                elif (user.pk, item_id) in excluded:
                    problem = f"rater {user.username} may not answer this step (they annotated it)"
                elif (user.pk, item_id) in seen:
                    problem = "the same rater and step appear twice"
                else:
                    seen.add((user.pk, item_id))
                    good.append((number, record, user, item_id, cleaned))
            if problem is not None:
                problems.add(number, problem)
    if not problems:
        for number, message in _check_rater_counts(campaign, good):
            problems.add(number, message)
    if not good and not problems:
        problems.add(None, "the file holds no line to import")
    problems.refuse()
    with transaction.atomic():
        return _write(campaign, good, source=source)


def _check_rater_counts(campaign, good) -> list[tuple[int, str]]:
    from review.campaigns.models import Assignment

    raters = defaultdict(set)
    for item_id, person_id in Assignment.objects.filter(
        campaign=campaign, committed=True
    ).values_list("item_id", "person_id"):
        raters[item_id].add(person_id)
    problems = []
    for number, record, user, item_id, _ in good:
        raters[item_id].add(user.pk)
        if len(raters[item_id]) > campaign.per_item:
            message = f"step {record['step']} would get more than {campaign.per_item} raters"
            problems.append((number, message))
    return problems


def _write(campaign, good, *, source: str) -> dict:
    from review.campaigns.models import Assignment, Submission
    from review.campaigns.services import current_submission

    at = now()
    reason = f"imported{' from ' + source if source else ''}"
    for _number, _record, user, item_id, cleaned in good:
        assignment = Assignment.objects.filter(item_id=item_id, person=user).first()
        if assignment is None:
            assignment = Assignment.objects.create(
                campaign=campaign,
                item_id=item_id,
                person=user,
                token=secrets.token_urlsafe(32),
                state=Assignment.State.DONE,
                committed=True,
                claims=0,
                done_at=at,
            )
        else:
            Assignment.objects.filter(pk=assignment.pk).update(
                state=Assignment.State.DONE,
                committed=True,
                lease_expires_at=None,
                done_at=assignment.done_at or at,
            )
        current = current_submission(assignment=assignment, part=PART)
        Submission.objects.create(
            assignment=assignment,
            campaign=campaign,
            item_id=item_id,
            person=user,
            part=PART,
            payload=cleaned,
            supersedes=current,
            reason=reason if current else "",
            created_at=at,
        )
    return {"responses": len(good), "broken": sum(1 for *_, c in good if c["broken"])}


def response_line(username: str, sample_id, payload: dict) -> dict:
    """One submission in the import format."""
    line = {"rater": username, "step": str(sample_id)}
    if payload.get("broken"):
        line["broken"] = True
        if payload.get("note"):
            line["note"] = payload["note"]
    else:
        for name in DIMENSIONS:
            answer = payload["dimensions"][name]
            line[name] = {
                "answerable": answer["answerable"],
                "answers": list(answer["answers"]),
                "confidence": answer["confidence"],
            }
    if payload.get("seconds") is not None:
        line["seconds"] = payload["seconds"]
    return line


def responses_export(*, campaign) -> Iterator[dict]:
    """The campaign's current responses in the import format, ordered by step then rater
    (what ``responses_load`` reads back unchanged)."""
    from review.campaigns.models import Submission

    rows = Submission.objects.filter(
        campaign=campaign, part=PART, superseded_by__isnull=True
    ).values_list("item__sample__sample_id", "person__username", "payload")
    out = [response_line(u, s, p) for s, u, p in rows.iterator(chunk_size=2000)]
    out.sort(key=lambda ln: (ln["step"], ln["rater"]))
    yield from out

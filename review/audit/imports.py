"""Decisions made elsewhere (a paper form, another tool) in and out as JSON Lines
(docs/audit.md, "Import format").

One object per line::

    {"kind": "decision", "reviewer": USER, "step": UID, "criterion": "C1"…"C7",
     "label": "valid"|"invalid"|"uncertain", "comment": TEXT?, "error_types": [CODE]?}
    {"kind": "adjudication", "adjudicator": USER, "step": UID, "criterion": "C1"…"C7",
     "label": "valid"|"invalid", "comment": TEXT?}

The whole file is checked before anything is written; any problem refuses all of it with every
problem listed by line number. A decision lands as the reviewer's submission of the criterion's
phase (a new one superseding the current one when there is one, both kept), an adjudication as
a new adjudication row.

The boundary audit reads and writes the same format with ``window`` in place of ``criterion``
and no error types: every function takes the kind's ``scheme`` (``review.audit.decisions``).
"""

from __future__ import annotations

import json
import secrets
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction

from review.audit.criteria import ADJUDICATION_LABELS, INVALID, LABELS
from review.audit.decisions import AUDIT, Scheme
from review.audit.kind import MAX_COMMENT
from studio.services import now


def _allowed(scheme: Scheme, kind: str) -> set[str]:
    if kind == "adjudication":
        return {"kind", "adjudicator", "step", scheme.key_field, "label", "comment"}
    fields = {"kind", "reviewer", "step", scheme.key_field, "label", "comment"}
    return fields | ({"error_types"} if scheme.error_types else set())


class ImportRefused(ValidationError):
    """The file was refused; ``problems`` lists ``(line number, message)``."""

    def __init__(self, problems: list[tuple[int, str]]):
        self.problems = problems
        super().__init__([f"line {n}: {m}" for n, m in problems])


def read_lines(path: Path) -> Iterator[tuple[int, object]]:
    """(line number, parsed object or the JSON error text) for every non-empty line."""
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                yield number, json.loads(raw)
            except json.JSONDecodeError as exc:
                yield number, ValueError(f"not JSON ({exc.msg} at column {exc.colno})")


def _check_line(record, *, codes, scheme: Scheme = AUDIT) -> str | None:
    if isinstance(record, ValueError):
        return str(record)
    if not isinstance(record, dict):
        return "not a JSON object"
    kind = record.get("kind")
    if kind not in ("decision", "adjudication"):
        return 'kind must be "decision" or "adjudication"'
    extra = sorted(set(record) - _allowed(scheme, kind))
    if extra:
        return f"unknown field(s) {', '.join(extra)}"
    who = "reviewer" if kind == "decision" else "adjudicator"
    field = scheme.key_field
    for key in (who, "step", field, "label"):
        if not isinstance(record.get(key), str) or not record[key]:
            return f"{key} is missing (a text)"
    if record[field] not in scheme.keys:
        known = "C1 … C7" if scheme is AUDIT else ", ".join(scheme.keys)
        return f"unknown {field} {record[field]!r} ({known})"
    labels = LABELS if kind == "decision" else ADJUDICATION_LABELS
    if record["label"] not in labels:
        return f"label must be one of {', '.join(labels)}"
    comment = record.get("comment", "")
    if not isinstance(comment, str) or len(comment) > MAX_COMMENT:
        return f"comment must be text of at most {MAX_COMMENT} characters"
    types = record.get("error_types", [])
    if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
        return "error_types must be a list of codes"
    known = {c for fitting in codes.values() for c in fitting}
    unknown = [t for t in types if t not in known]
    if unknown:
        return f"unknown error code(s) {', '.join(unknown)}"
    misfit = [t for t in types if t not in codes.get(record[field], ())]
    if misfit:
        return f"error code(s) {', '.join(misfit)} do not belong to {record[field]}"
    if types and record["label"] != INVALID:
        return "error_types go with an invalid label only"
    return None


def decisions_load(
    *, campaign, lines: Iterable, author=None, source: str = "", scheme: Scheme = AUDIT
) -> dict:
    """Validate every line, then write them all in one transaction. ``lines`` holds parsed
    objects or ``(number, object)`` pairs. Returns counts; raises ImportRefused."""
    from review.campaigns.models import CampaignItem, Exclusion

    numbered = [ln if isinstance(ln, tuple) else (i, ln) for i, ln in enumerate(lines, 1)]
    codes = scheme.error_codes(campaign)
    problems: list[tuple[int, str]] = []
    users = get_user_model().objects
    names = {
        rec.get("reviewer") or rec.get("adjudicator")
        for _, rec in numbered
        if isinstance(rec, dict)
    }
    by_name = {u.username: u for u in users.filter(username__in=[n for n in names if n])}
    people = set(campaign.people.values_list("pk", flat=True))
    items = {
        str(sid): pk
        for pk, sid in CampaignItem.objects.filter(campaign=campaign).values_list(
            "pk", "sample__sample_id"
        )
    }
    excluded = set(Exclusion.objects.filter(campaign=campaign).values_list("person_id", "item_id"))
    from studio.roles import ADJUDICATOR, ADMIN, roles_of

    good = []
    seen = set()
    for number, record in numbered:
        problem = _check_line(record, codes=codes, scheme=scheme)
        if problem is None:
            who = record.get("reviewer") or record.get("adjudicator")
            user = by_name.get(who)
            item_id = items.get(record["step"].strip().lower())
            key = (record["kind"], who, record["step"], record[scheme.key_field])
            if user is None:
                problem = f"unknown user {who!r}"
            elif item_id is None:
                problem = f"step {record['step']} is not in the campaign's manifest"
            elif record["kind"] == "decision" and user.pk not in people:
                problem = f"reviewer {who} is not in campaign {campaign.name}"
            elif record["kind"] == "decision" and (user.pk, item_id) in excluded:
                problem = f"reviewer {who} may not judge this step (they annotated or revised it)"
            elif record["kind"] == "adjudication" and not roles_of(user) & {ADJUDICATOR, ADMIN}:
                problem = f"{who} is neither an adjudicator nor an admin"
            elif key in seen:
                problem = f"the same reviewer, step and {scheme.key_field} appear twice"
            else:
                seen.add(key)
                good.append((number, record, user, item_id))
        if problem is not None:
            problems.append((number, problem))
    if not problems:
        problems = _check_reviewer_counts(campaign, good)
    if problems:
        raise ImportRefused(problems)
    return _write(campaign, good, source=source, scheme=scheme)


def _check_reviewer_counts(campaign, good) -> list[tuple[int, str]]:
    from review.campaigns.models import Assignment

    reviewers = defaultdict(set)
    for item_id, person_id in Assignment.objects.filter(
        campaign=campaign, committed=True
    ).values_list("item_id", "person_id"):
        reviewers[item_id].add(person_id)
    problems = []
    for number, record, user, item_id in good:
        if record["kind"] != "decision":
            continue
        reviewers[item_id].add(user.pk)
        if len(reviewers[item_id]) > campaign.per_item:
            problems.append(
                (number, f"step {record['step']} would get more than {campaign.per_item} reviewers")
            )
    return problems


@transaction.atomic
def _write(campaign, good, *, source: str, scheme: Scheme) -> dict:
    from review.audit.models import Adjudication
    from review.campaigns.models import Assignment, Submission
    from review.campaigns.services import current_submission

    at = now()
    parts: dict[tuple[int, int, str], dict] = defaultdict(dict)
    users = {}
    adjudications = 0
    for _number, record, user, item_id in good:
        key = record[scheme.key_field]
        if record["kind"] == "decision":
            part = scheme.part_of(key)
            users[user.pk] = user
            label = record["label"]
            answer = {"label": label, "comment": (record.get("comment") or "").strip()}
            if scheme.error_types:
                types = record.get("error_types") or []
                answer["error_types"] = sorted(set(types)) if label == INVALID else []
            parts[(user.pk, item_id, part)][key] = answer
        else:
            previous = Adjudication.objects.filter(
                item_id=item_id, criterion=key, superseded_by__isnull=True
            ).first()
            Adjudication.objects.create(
                campaign=campaign,
                item_id=item_id,
                criterion=key,
                label=record["label"],
                comment=(record.get("comment") or "").strip(),
                adjudicator=user,
                created_at=at,
                supersedes=previous,
                imported=True,
            )
            adjudications += 1
    reason = f"imported{' from ' + source if source else ''}"
    touched = set()
    for (person_id, item_id, part), criteria in sorted(parts.items()):
        assignment = Assignment.objects.filter(item_id=item_id, person_id=person_id).first()
        if assignment is None:
            assignment = Assignment.objects.create(
                campaign=campaign,
                item_id=item_id,
                person_id=person_id,
                token=secrets.token_urlsafe(32),
                state=Assignment.State.RELEASED,
                committed=True,
                claims=0,
            )
        current = current_submission(assignment=assignment, part=part)
        merged = {**(current.payload.get(scheme.answers, {}) if current else {}), **criteria}
        Submission.objects.create(
            assignment=assignment,
            campaign=campaign,
            item_id=item_id,
            person_id=person_id,
            part=part,
            payload={scheme.answers: merged},
            supersedes=current,
            reason=reason if current else "",
            created_at=at,
        )
        touched.add(assignment.pk)
    for assignment in Assignment.objects.filter(pk__in=touched):
        done = set(
            Submission.objects.filter(
                assignment=assignment, superseded_by__isnull=True
            ).values_list("part", flat=True)
        )
        fields = {"committed": True}
        if done >= set(scheme.parts):
            fields |= {
                "state": Assignment.State.DONE,
                "lease_expires_at": None,
                "done_at": assignment.done_at or at,
            }
        Assignment.objects.filter(pk=assignment.pk).update(**fields)
    return {
        "decisions": sum(len(c) for c in parts.values()),
        "submissions": len(parts),
        "adjudications": adjudications,
    }


def decisions_export(*, campaign, scheme: Scheme = AUDIT) -> Iterator[dict]:
    """The campaign's current decisions and adjudications in the import format, ordered by
    step, then criterion, then reviewer (what ``decisions_load`` reads back unchanged)."""
    from review.audit.models import Adjudication
    from review.campaigns.models import Submission

    rows = Submission.objects.filter(campaign=campaign, superseded_by__isnull=True).values_list(
        "item__sample__sample_id", "person__username", "payload"
    )
    out = []
    for sample_id, username, payload in rows.iterator(chunk_size=2000):
        for cid, answer in sorted((payload or {}).get(scheme.answers, {}).items()):
            if not answer.get("label"):
                continue
            line = {
                "kind": "decision",
                "reviewer": username,
                "step": str(sample_id),
                scheme.key_field: cid,
                "label": answer["label"],
            }
            if answer.get("comment"):
                line["comment"] = answer["comment"]
            if answer.get("error_types"):
                line["error_types"] = list(answer["error_types"])
            out.append(line)
    out.sort(key=lambda ln: (ln["step"], ln[scheme.key_field], ln["reviewer"]))
    yield from out
    adjs = (
        Adjudication.objects.filter(campaign=campaign, superseded_by__isnull=True)
        .values_list(
            "item__sample__sample_id", "criterion", "adjudicator__username", "label", "comment"
        )
        .order_by("item__sample__sample_id", "criterion")
    )
    for sample_id, cid, username, label, comment in adjs:
        line = {
            "kind": "adjudication",
            "adjudicator": username,
            "step": str(sample_id),
            scheme.key_field: cid,
            "label": label,
        }
        if comment:
            line["comment"] = comment
        yield line

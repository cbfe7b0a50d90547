"""Writes of the QA review: a reviewer's proposed edits (stored with their decision), and
an admin's decisions on edits (declined, or accepted into a new frozen version of the set)."""

from __future__ import annotations

import copy
from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import transaction

from review.qa.models import QaEdit, QaGroupSet
from review.qa.schema import RecordError, VideoFacts, check_record
from review.qa.selectors import group_of
from review.qa.store import groups_write, set_groups, set_records, set_seal
from studio.services import now


def qa_edits_store(*, submission) -> list[QaEdit]:
    """The kind's ``on_submit``: each edit a reviewer's decision proposes becomes its own
    ``QaEdit`` beside the original group, which is never touched. The campaign's ``submit`` and
    ``supersede`` call it inside their transaction, so a decision keeps its edits whichever way
    it was sent (the review page or the API)."""
    group = group_of(submission.assignment)
    at = submission.created_at
    rows = []
    for edit in submission.payload["edits"]:
        row = QaEdit(
            group=group,
            turn=edit["turn"],
            evidence=edit["evidence"],
            field=edit["field"],
            original=edit["original"],
            proposed=edit["value"],
            reason=edit["reason"],
            author_id=submission.person_id,
            created_at=at,
            submission=submission,
        )
        row.full_clean(exclude=["submission", "author", "decided_by", "accepted_into"])
        row.save()
        rows.append(row)
    return rows


@transaction.atomic
def qa_edit_decline(*, edit: QaEdit, admin) -> QaEdit:
    if edit.state != QaEdit.State.PROPOSED:
        raise ValidationError({"edit": "This edit is already decided."})
    edit.state = QaEdit.State.DECLINED
    edit.decided_by = admin
    edit.decided_at = now()
    edit.save(update_fields=["state", "decided_by", "decided_at"])
    return edit


def _apply(record: dict, edit: QaEdit, span_start_us: int) -> None:
    if edit.field in ("structure", "category", "modality"):
        record[edit.field] = edit.proposed
        return
    turn = record["turns"][edit.turn]
    if edit.field in ("question", "answer", "options"):
        turn[edit.field] = copy.deepcopy(edit.proposed)
        return
    evidence = turn["evidence"][edit.evidence]
    if edit.field == "interval":
        evidence["start_us"], evidence["end_us"] = edit.proposed
    elif edit.field == "evidence_modality":
        evidence["modality"] = edit.proposed
    else:
        evidence["description"] = edit.proposed


@transaction.atomic
def qa_version_create(
    *, parent: QaGroupSet, name: str, edits: Iterable[QaEdit], admin, note: str = ""
) -> QaGroupSet:
    """A new frozen version of ``parent`` with ``edits`` applied (each still proposed, each on a
    group of ``parent``). The result is checked against the import schema like any file (times
    snapped to frames); the manifest names the parent and lists what changed. The parent and
    the edits' originals stay as they were."""
    edits = sorted(edits, key=lambda e: e.pk)
    if not edits:
        raise ValidationError({"edits": "Choose at least one proposed edit."})
    if QaGroupSet.objects.filter(name=name).exists():
        raise ValidationError({"name": f"A QA group set named {name} already exists."})
    QaGroupSet(name=name).clean_fields(exclude=["origin", "manifest_text"])
    for edit in edits:
        if edit.state != QaEdit.State.PROPOSED:
            raise ValidationError({"edits": f"Edit {edit.pk} is already decided."})
        if edit.group.group_set_id != parent.pk:
            raise ValidationError({"edits": f"Edit {edit.pk} is not on a group of {parent.name}."})
    records = {r["uid"]: r for r in set_records(parent)}
    groups = {str(g.uid): g for g in set_groups(parent)}
    before = copy.deepcopy(records)
    for edit in edits:
        uid = str(edit.group.uid)
        _apply(records[uid], edit, groups[uid].span_start_us)
    changed = []
    cleaned = []
    problems = []
    for uid in sorted(records):
        record = records[uid]
        if record != before[uid]:
            video = groups[uid].video
            facts = VideoFacts(video.duration_us, video.frame_times_us())
            try:
                record, _ = check_record(record, lambda sha, f=facts: f)
            except RecordError as exc:
                problems.extend(f"group {uid}: {p}" for p in exc.problems)
                continue
            fields = sorted(k for k in record if record[k] != before[uid][k])
            changed.append({"sample_id": uid, "fields": fields})
        cleaned.append(record)
    if problems:
        raise ValidationError({"edits": problems})
    child = QaGroupSet.objects.create(
        name=name, origin=QaGroupSet.Origin.EDITED, parent=parent, note=note
    )
    groups_write(
        group_set=child,
        records=cleaned,
        videos={g.video.sha256: g.video for g in groups.values()},
    )
    set_seal(
        group_set=child,
        author=admin,
        changes={"added": [], "removed": [], "changed": changed},
    )
    at = now()
    for edit in edits:
        edit.state = QaEdit.State.ACCEPTED
        edit.decided_by = admin
        edit.decided_at = at
        edit.accepted_into = child
        edit.save(update_fields=["state", "decided_by", "decided_at", "accepted_into"])
    return child


def version_diff(group_set: QaGroupSet) -> list[dict]:
    """What a version changed against its parent: per changed group, each differing field with
    the parent's value and this version's (empty for an imported set)."""
    if group_set.parent is None:
        return []
    parent = {r["uid"]: r for r in set_records(group_set.parent)}
    rows = []
    for record in set_records(group_set):
        old = parent.get(record["uid"])
        if old is None or old == record:
            continue
        rows.append(
            {
                "uid": record["uid"],
                "fields": [
                    {"field": k, "before": old[k], "after": record[k]}
                    for k in sorted(record)
                    if record[k] != old[k]
                ],
            }
        )
    return rows

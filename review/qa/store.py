"""Writing QA group sets: a version's rows from cleaned records, its records back out in
canonical order, and its seal (both SHA-256 values, like a release; docs/qa.md).

The one place that turns records into rows and rows into records, so an import, an export and
a new version made from accepted edits can never disagree about the format.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping

from review.qa.models import QaEvidence, QaGroup, QaGroupSet, QaTurn
from review.qa.schema import RECORD_FORMAT, as_uuid, span_of
from studio.canonical import build_manifest, canonical_bytes, sha256_hex
from studio.services import now

SET_KIND = "qa_group_set"


class LineStream:
    """Both hashes of records keyed by ``uid``, fed in ascending uid order (checked)."""

    def __init__(self) -> None:
        self._samples = hashlib.sha256()
        self._records = hashlib.sha256()
        self._last: bytes | None = None
        self.count = 0

    def add(self, record: Mapping) -> bytes:
        key = record["uid"].encode("utf-8")
        if self._last is not None and key <= self._last:
            raise ValueError(f"group {record['uid']} is out of order or repeated")
        self._last = key
        line = canonical_bytes(record) + b"\n"
        self._samples.update(key + b"\n")
        self._records.update(line)
        self.count += 1
        return line

    @property
    def sample_list_sha256(self) -> str:
        return self._samples.hexdigest()

    @property
    def records_sha256(self) -> str:
        return self._records.hexdigest()


def groups_write(*, group_set: QaGroupSet, records: Iterable[Mapping], videos: Mapping) -> int:
    """Rows of every record (``videos``: SHA-256 → SourceVideo). The set must not be frozen."""
    count = 0
    for record in records:
        start, end = span_of(record)
        group = QaGroup.objects.create(
            group_set=group_set,
            uid=as_uuid(record["uid"]),
            video=videos[record["video_sha256"]],
            split=record["split"],
            structure=record["structure"],
            category=record["category"],
            modality=record["modality"],
            turn_count=record["turn_count"],
            episodes=list(record["episodes"]),
            provenance=dict(record["provenance"]),
            span_start_us=start,
            span_end_us=end,
        )
        evidence = []
        for position, turn in enumerate(record["turns"]):
            row = QaTurn.objects.create(
                group=group,
                position=position,
                question=turn["question"],
                answer=turn["answer"],
                options=list(turn["options"]) if turn["options"] is not None else None,
                depends_on=list(turn["depends_on"]),
                cutoff_us=turn.get("cutoff_us"),
            )
            evidence.extend(
                QaEvidence(
                    turn=row,
                    position=k,
                    start_us=e["start_us"],
                    end_us=e["end_us"],
                    modality=e["modality"],
                    description=e["description"],
                )
                for k, e in enumerate(turn["evidence"])
            )
        QaEvidence.objects.bulk_create(evidence)
        count += 1
    return count


def group_record(group: QaGroup) -> dict:
    """The ``qa-group/2`` record of one group (turns and evidence prefetched or queried)."""
    turns = []
    for turn in sorted(group.turns.all(), key=lambda t: t.position):
        turns.append(
            # A turn without a cutoff has no cutoff_us member: its bytes are qa-group/1's.
            ({"cutoff_us": turn.cutoff_us} if turn.cutoff_us is not None else {})
            | {
                "question": turn.question,
                "answer": turn.answer,
                "options": list(turn.options) if turn.options is not None else None,
                "depends_on": list(turn.depends_on),
                "evidence": [
                    {
                        "start_us": e.start_us,
                        "end_us": e.end_us,
                        "modality": e.modality,
                        "description": e.description,
                    }
                    for e in sorted(turn.evidence.all(), key=lambda e: e.position)
                ],
            }
        )
    return {
        "uid": str(group.uid),
        "video_sha256": group.video.sha256,
        "split": group.split,
        "structure": group.structure,
        "category": group.category,
        "modality": group.modality,
        "turn_count": group.turn_count,
        "episodes": list(group.episodes),
        "provenance": {
            "source_ids": list(group.provenance.get("source_ids", [])),
            "generator_version": group.provenance.get("generator_version", ""),
        },
        "turns": turns,
    }


def set_groups(group_set: QaGroupSet, uids: Iterable[str] | None = None):
    rows = (
        QaGroup.objects.filter(group_set=group_set)
        .select_related("video")
        .prefetch_related("turns__evidence")
        .order_by("uid")
    )
    if uids is not None:
        rows = rows.filter(uid__in=[as_uuid(u) for u in uids])
    return rows


def set_records(group_set: QaGroupSet, uids: Iterable[str] | None = None) -> Iterator[dict]:
    """Records in canonical order (ascending uid bytes), a few hundred groups read at a time.
    The database's uid order is that order: UUIDs compare as their 16 bytes, which is the order
    of their lower-case hex text (``LineStream.add`` checks it)."""
    for group in set_groups(group_set, uids).iterator(chunk_size=500):
        yield group_record(group)


def set_seal(*, group_set: QaGroupSet, author, changes: Mapping | None = None) -> QaGroupSet:
    """Hash what the set now holds and freeze it."""
    stream = LineStream()
    for record in set_records(group_set):
        stream.add(record)
    parent = group_set.parent
    header = build_manifest(
        kind=SET_KIND,
        name=group_set.name,
        record_format=RECORD_FORMAT,
        stream=stream,
        parent={"name": parent.name, "manifest_sha256": parent.manifest_sha256}
        if parent is not None
        else None,
        changes=changes,
    )
    text = canonical_bytes(header)
    group_set.sample_count = stream.count
    group_set.sample_list_sha256 = stream.sample_list_sha256
    group_set.records_sha256 = stream.records_sha256
    group_set.manifest_text = text.decode("utf-8")
    group_set.manifest_sha256 = sha256_hex(text)
    group_set.frozen_at = now()
    group_set.frozen_by = author
    group_set.save()
    return group_set

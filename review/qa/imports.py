"""``import_qa`` and its export: QA groups from JSON Lines, validated all-or-nothing with line
numbers, frozen as a new QA group set; and the same schema written back (docs/qa.md)."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import transaction

from media.models import SourceVideo
from review.qa.models import QaGroupSet
from review.qa.schema import RecordError, VideoFacts, check_record
from review.qa.store import set_records, set_seal
from studio.canonical import canonical_bytes

MAX_PROBLEMS = 50


class QaImportError(ValueError):
    """The file was refused; ``problems`` name the lines. Nothing was written."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


def _video_lookup():
    cache: dict[str, object] = {}

    def video_of(sha: str):
        if sha not in cache:
            video = (
                SourceVideo.objects.filter(sha256=sha, status=SourceVideo.Status.READY)
                .only("id", "sha256", "duration_us", "frame_times")
                .first()
            )
            cache[sha] = video
        video = cache[sha]
        if video is None:
            return None
        return VideoFacts(video.duration_us, video.frame_times_us())

    return video_of, cache


def parse_lines(text: str, video_of) -> tuple[list[dict], int]:
    """Cleaned records and the number of snapped times; QaImportError names every bad line."""
    problems: list[str] = []
    records: list[dict] = []
    seen: dict[str, int] = {}
    moved = 0
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"line {number}: not JSON ({exc.msg})")
            continue
        try:
            cleaned, snapped = check_record(record, video_of)
        except RecordError as exc:
            problems.extend(f"line {number}: {p}" for p in exc.problems)
            continue
        if cleaned["uid"] in seen:
            problems.append(
                f"line {number}: uid {cleaned['uid']} already on line {seen[cleaned['uid']]}"
            )
            continue
        seen[cleaned["uid"]] = number
        records.append(cleaned)
        moved += snapped
    if not records and not problems:
        problems.append("the file holds no QA groups")
    if problems:
        if len(problems) > MAX_PROBLEMS:
            problems = [*problems[:MAX_PROBLEMS], f"… and {len(problems) - MAX_PROBLEMS} more"]
        raise QaImportError(problems)
    return records, moved


@transaction.atomic
def qa_import(*, text: str, name: str, author, note: str = "") -> tuple[QaGroupSet, int]:
    """Freeze the groups of ``text`` as a new QA group set; returns it and how many evidence
    times were snapped to the frame grid. Refuses (nothing written) any bad line."""
    from review.qa.store import groups_write

    if QaGroupSet.objects.filter(name=name).exists():
        raise QaImportError([f"a QA group set named {name} already exists"])
    try:
        QaGroupSet(name=name).clean_fields(exclude=["origin", "manifest_text"])
    except ValidationError as exc:
        raise QaImportError([f"name: {m}" for m in exc.messages]) from None
    video_of, videos = _video_lookup()
    records, moved = parse_lines(text, video_of)
    group_set = QaGroupSet.objects.create(name=name, origin=QaGroupSet.Origin.IMPORTED, note=note)
    by_sha = {sha: v for sha, v in videos.items() if v is not None}
    groups_write(group_set=group_set, records=records, videos=by_sha)
    return set_seal(group_set=group_set, author=author), moved


def qa_import_file(*, path: Path, name: str, author, note: str = "") -> tuple[QaGroupSet, int]:
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise QaImportError([f"{path} cannot be read as UTF-8 text: {exc}"]) from None
    return qa_import(text=text, name=name, author=author, note=note)


def qa_export_bytes(*, group_set: QaGroupSet, uids=None) -> bytes:
    """The groups as JSON Lines: one canonical record per line, ascending uid, each ending in
    ``\\n`` (the bytes whose SHA-256 is the set's records hash)."""
    return b"".join(canonical_bytes(r) + b"\n" for r in set_records(group_set, uids))

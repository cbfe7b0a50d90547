"""``import_qa`` and its export: QA groups from JSON Lines, validated all-or-nothing with line
numbers, frozen as a new QA group set; and the same schema written back (docs/qa.md).

Read with the one JSON Lines reader (``studio.jsonl``): a first pass checks every line without
keeping it (the first 100 problems listed, then how many more), a second pass writes the groups
in one transaction, so memory does not grow with the file.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from django.core.exceptions import ValidationError
from django.db import transaction

from media.models import SourceVideo
from review.qa.models import QaGroupSet
from review.qa.schema import RecordError, VideoFacts, check_record
from review.qa.store import set_records, set_seal
from studio.canonical import canonical_bytes
from studio.jsonl import ImportRefused, Problems, Seen, chunks, json_lines, rereadable

VIDEOS_KEPT = 16  # videos whose frame-time index is held at once (a file groups by video)

# One name for the refusal of a QA file, whichever import raised it.
QaImportError = ImportRefused


class _Videos:
    """The videos an import names, by SHA-256: a batch of lines' videos looked up in one query
    (``known``), the found ones' frame-time index held a few at a time."""

    def __init__(self) -> None:
        self.cache: dict[str, SourceVideo | None] = {}
        self.absent: set[str] = set()  # of the current batch

    def known(self, shas: set) -> None:
        self.absent.clear()
        wanted = {s for s in shas if isinstance(s, str)} - self.cache.keys()
        found = SourceVideo.objects.filter(sha256__in=wanted, status=SourceVideo.Status.READY)
        self.absent.update(wanted - set(found.values_list("sha256", flat=True)))

    def _video(self, sha: str) -> SourceVideo | None:
        if sha in self.absent:
            return None
        if sha not in self.cache:
            if len(self.cache) >= VIDEOS_KEPT:
                self.cache.pop(next(iter(self.cache)))
            self.cache[sha] = (
                SourceVideo.objects.filter(sha256=sha, status=SourceVideo.Status.READY)
                .only("id", "sha256", "duration_us", "frame_times")
                .first()
            )
        return self.cache[sha]

    def __call__(self, sha: str) -> VideoFacts | None:
        """``video_of`` of ``check_record``."""
        video = self._video(sha)
        return None if video is None else VideoFacts(video.duration_us, video.frame_times_us())

    def __getitem__(self, sha: str) -> SourceVideo:
        """The video of a record being written (``groups_write``)."""
        return self._video(sha)


def _records(path, problems: Problems, video_of: _Videos) -> Iterator[tuple[int, dict, int]]:
    """(line, cleaned record, times snapped) of every good line; the bad ones in ``problems``.
    Lines are read a thousand at a time, their videos looked up in one query."""
    for chunk in chunks(json_lines(path, problems=problems)):
        video_of.known({r.get("video_sha256") for _n, r in chunk})
        for number, record in chunk:
            try:
                cleaned, snapped = check_record(record, video_of)
            except RecordError as exc:
                for problem in exc.problems:
                    problems.add(number, problem)
                continue
            yield number, cleaned, snapped


def _check(path, video_of: _Videos) -> int:
    """Every line checked, nothing kept but a digest of each uid; returns the snapped count."""
    problems, seen, moved, count = Problems(), Seen(), 0, 0
    for number, cleaned, snapped in _records(path, problems, video_of):
        seen.add(cleaned["uid"], number)
        moved += snapped
        count += 1
    repeats, total = seen.duplicates()
    for number, first in repeats:
        problems.add(number, f"its uid is already on line {first}")
    problems.add_uncounted(total - len(repeats))
    if not count and not problems:
        problems.add(None, "the file holds no QA groups")
    problems.refuse()
    return moved


def qa_import(
    *,
    name: str,
    author,
    note: str = "",
    source: str | Path | IO[bytes] | None = None,
    text: str | None = None,
) -> tuple[QaGroupSet, int]:
    """Freeze the groups of ``source`` (a path or a binary stream; or ``text``) as a new QA
    group set; returns it and how many evidence times were snapped to the frame grid. Refuses
    (ImportRefused, nothing written) any bad line."""
    from review.qa.store import groups_write

    if text is not None:
        source = io.BytesIO(text.encode("utf-8", "surrogatepass"))
    if QaGroupSet.objects.filter(name=name).exists():
        raise ImportRefused(f"a QA group set named {name} already exists")
    try:
        QaGroupSet(name=name).clean_fields(exclude=["origin", "manifest_text"])
    except ValidationError as exc:
        raise ImportRefused([(None, f"name: {m}") for m in exc.messages]) from None
    videos = _Videos()
    with rereadable(source) as path:
        moved = _check(path, videos)
        with transaction.atomic():
            group_set = QaGroupSet.objects.create(
                name=name, origin=QaGroupSet.Origin.IMPORTED, note=note
            )
            records = (r for _n, r, _s in _records(path, Problems(), videos))
            groups_write(group_set=group_set, records=records, videos=videos)
            return set_seal(group_set=group_set, author=author), moved


def qa_import_file(*, path: Path, name: str, author, note: str = "") -> tuple[QaGroupSet, int]:
    try:
        return qa_import(source=Path(path), name=name, author=author, note=note)
    except OSError as exc:
        raise ImportRefused(f"{path} cannot be read: {exc.strerror}") from None


def qa_export_bytes(*, group_set: QaGroupSet, uids=None) -> bytes:
    """The groups as JSON Lines: one canonical record per line, ascending uid, each ending in
    ``\\n`` (the bytes whose SHA-256 is the set's records hash)."""
    return b"".join(canonical_bytes(r) + b"\n" for r in set_records(group_set, uids))

"""Micro-steps as JSON Lines: one step per line, the schema in docs/steps-jsonl.md.

Import is all or nothing, read with the one JSON Lines reader (``studio.jsonl``): a first pass
checks every line (schema, tags, the video, the uid) without keeping the lines, and reports every
bad one by number (the first 100, then how many more); only a file without a single problem is
written, in a second pass and one transaction (active steps first), where a step the rules of
the timeline refuse still refuses the whole file, naming its line.
"""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterable, Iterator
from typing import IO, Literal

from django.core.exceptions import ValidationError
from django.db import transaction
from pydantic import BaseModel, ConfigDict, Field, StrictInt
from pydantic import ValidationError as SchemaError

from annotation.models import LABEL_FIELDS, TAG_FIELDS, TIME_FIELDS, MicroStep, StepRevision
from annotation.services import step_create
from annotation.tags import clean_tags
from media.models import SourceVideo
from studio.jsonl import ImportRefused, Problems, Seen, chunks, json_lines, rereadable
from studio.services import now

VIDEOS_KEPT = 16  # videos held while steps are written (a file lists a video's steps together)


class StepLine(BaseModel):
    """One line of a steps file. Times are integer microseconds (see docs/architecture.md)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    uid: uuid.UUID | None = None
    video_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    start_us: StrictInt
    cutoff_us: StrictInt
    outcome_us: StrictInt
    end_us: StrictInt
    local_intent: str = ""
    procedural_intent: str = ""
    next_step: str = ""
    plausible_next_steps: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    status: Literal["active", "retracted"] = "active"


def _schema_message(exc: SchemaError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "line"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


def _validation_message(exc: ValidationError) -> str:
    if hasattr(exc, "message_dict"):
        return "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
    return " ".join(exc.messages)


def _steps(path, problems: Problems) -> Iterator[tuple[int, StepLine]]:
    for number, data in json_lines(path, problems=problems):
        try:
            yield number, StepLine.model_validate(data)
        except SchemaError as exc:
            problems.add(number, _schema_message(exc))


def _check(path, problems: Problems) -> int:
    """Every line checked without writing (the rules that need no earlier line of the file
    written); returns how many steps the file holds."""
    known: set[str] = set()  # SHA-256 of videos found (bounded by the videos stored)
    seen = Seen()
    count = 0
    for chunk in chunks(_steps(path, problems)):
        shas = {item.video_sha256 for _, item in chunk} - known
        known |= set(SourceVideo.objects.filter(sha256__in=shas).values_list("sha256", flat=True))
        uids = [item.uid for _, item in chunk if item.uid is not None]
        taken = set(MicroStep.objects.filter(uid__in=uids).values_list("uid", flat=True))
        for number, item in chunk:
            count += 1
            try:
                clean_tags(item.tags)
            except ValidationError as exc:
                problems.add(number, _validation_message(exc))
            if item.video_sha256 not in known:
                problems.add(number, f"no video with SHA-256 {item.video_sha256}")
            if item.uid is not None:
                if item.uid in taken:
                    problems.add(number, f"a step with uid {item.uid} already exists")
                seen.add(str(item.uid), number)
    repeats, total = seen.duplicates()
    for number, first in repeats:
        problems.add(number, f"its uid appears twice in this file (first on line {first})")
    problems.add_uncounted(total - len(repeats))
    return count


def steps_import(
    *,
    source: str | IO[bytes] | None = None,
    lines: Iterable[str] | None = None,
    author=None,
    reason: str = "imported",
) -> int:
    """Create every step of ``source`` (a path or a binary stream; or text ``lines``) or none.
    Returns the count; raises ImportRefused naming the lines."""
    if lines is not None:
        source = io.BytesIO("\n".join(ln.rstrip("\n") for ln in lines).encode("utf-8"))
    with rereadable(source) as path:
        problems = Problems()
        count = _check(path, problems)
        if not count and not problems:
            problems.add(None, "the file holds no step")
        problems.refuse()
        videos: dict[str, SourceVideo] = {}
        with transaction.atomic():
            # Active steps first: a retracted step may overlap an active one, never the reverse.
            for status in ("active", "retracted"):
                for number, item in _steps(path, Problems()):
                    if item.status != status:
                        continue
                    if item.video_sha256 not in videos:
                        if len(videos) >= VIDEOS_KEPT:  # a video holds its frame-time index
                            videos.pop(next(iter(videos)))
                        videos[item.video_sha256] = SourceVideo.objects.get(
                            sha256=item.video_sha256
                        )
                    try:
                        _create(item, videos[item.video_sha256], author, reason)
                    except ValidationError as exc:
                        raise ImportRefused([(number, _validation_message(exc))]) from exc
    return count


def _create(item: StepLine, video: SourceVideo, author, reason: str) -> MicroStep:
    labels = item.model_dump(include=set(LABEL_FIELDS + TAG_FIELDS))
    times = item.model_dump(include=set(TIME_FIELDS))
    if item.status == "active":
        return step_create(
            video=video,
            author=author,
            reason=reason,
            uid=item.uid,
            action=StepRevision.Action.IMPORT,
            **times,
            **labels,
        )
    # A retracted step keeps its history elsewhere; here it is stored as it was exported,
    # outside the no-overlap rule, which binds active steps only.
    labels["tags"] = clean_tags(labels["tags"])
    step = MicroStep(
        video=video, created_by=author, status=MicroStep.Status.RETRACTED, **times, **labels
    )
    if item.uid is not None:
        step.uid = item.uid
    step.full_clean(exclude=["video", "created_by"], validate_constraints=False)
    step.save()
    StepRevision.objects.create(
        step=step,
        version=1,
        action=StepRevision.Action.IMPORT,
        author=author,
        created_at=now(),
        reason=reason,
        previous=None,
        values=step.snapshot(),
    )
    return step


def steps_export(*, steps=None) -> Iterator[str]:
    """Yield one JSON line per step (with its final newline), in video and time order."""
    steps = MicroStep.objects.all() if steps is None else steps
    rows = steps.select_related("video").order_by("video__sha256", "start_us", "id")
    for step in rows.iterator(chunk_size=2000):
        line = StepLine(
            uid=step.uid,
            video_sha256=step.video.sha256,
            start_us=step.start_us,
            cutoff_us=step.cutoff_us,
            outcome_us=step.outcome_us,
            end_us=step.end_us,
            local_intent=step.local_intent,
            procedural_intent=step.procedural_intent,
            next_step=step.next_step,
            plausible_next_steps=step.plausible_next_steps,
            tags=step.tags,
            status=step.status,
        )
        yield json.dumps(line.model_dump(mode="json"), ensure_ascii=False) + "\n"


def write_export(out: IO[str], **kwargs) -> int:
    count = 0
    for line in steps_export(**kwargs):
        out.write(line)
        count += 1
    return count

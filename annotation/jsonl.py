"""Micro-steps as JSON Lines: one step per line, the schema in docs/steps-jsonl.md.

Import is all or nothing: every line is checked first and every bad line is reported with its
number; only a file without a single problem is written, in one transaction.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Literal

from django.core.exceptions import ValidationError
from django.db import transaction
from pydantic import BaseModel, ConfigDict, Field, StrictInt
from pydantic import ValidationError as SchemaError

from annotation.models import LABEL_FIELDS, TAG_FIELDS, TIME_FIELDS, MicroStep, StepRevision
from annotation.services import step_create
from annotation.tags import clean_tags
from media.models import SourceVideo
from studio.services import now


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


@dataclass(frozen=True)
class LineError:
    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


class ImportFailed(Exception):
    def __init__(self, errors: list[LineError]):
        super().__init__(f"{len(errors)} bad line(s); nothing was imported")
        self.errors = errors


def _schema_message(exc: SchemaError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "line"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


def _parse(lines: Iterable[str]) -> tuple[list[tuple[int, StepLine]], list[LineError]]:
    parsed, errors = [], []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            errors.append(LineError(number, f"not JSON ({exc.msg} at column {exc.colno})"))
            continue
        if not isinstance(data, dict):
            errors.append(LineError(number, "must be a JSON object"))
            continue
        try:
            parsed.append((number, StepLine.model_validate(data)))
        except SchemaError as exc:
            errors.append(LineError(number, _schema_message(exc)))
    return parsed, errors


def _validation_message(exc: ValidationError) -> str:
    if hasattr(exc, "message_dict"):
        return "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
    return " ".join(exc.messages)


def steps_import(*, lines: Iterable[str], author=None, reason: str = "imported") -> int:
    """Create every step of ``lines`` or none. Returns the count; raises ImportFailed."""
    parsed, errors = _parse(lines)
    shas = {item.video_sha256 for _, item in parsed}
    videos = {v.sha256: v for v in SourceVideo.objects.filter(sha256__in=shas)}
    uids = [item.uid for _, item in parsed if item.uid is not None]
    taken = set(MicroStep.objects.filter(uid__in=uids).values_list("uid", flat=True))
    seen: set[uuid.UUID] = set()
    for number, item in parsed:
        try:
            clean_tags(item.tags)
        except ValidationError as exc:
            errors.append(LineError(number, _validation_message(exc)))
        if item.video_sha256 not in videos:
            errors.append(LineError(number, f"no video with SHA-256 {item.video_sha256}"))
        if item.uid is not None:
            if item.uid in taken:
                errors.append(LineError(number, f"a step with uid {item.uid} already exists"))
            if item.uid in seen:
                errors.append(LineError(number, f"uid {item.uid} appears twice in this file"))
            seen.add(item.uid)
    if errors:
        raise ImportFailed(sorted(errors, key=lambda e: e.line))

    # Active steps first: a retracted step may overlap an active one, never the reverse.
    ordered = sorted(parsed, key=lambda pair: pair[1].status != "active")
    with transaction.atomic():
        for number, item in ordered:
            try:
                _create(item, videos[item.video_sha256], author, reason)
            except ValidationError as exc:
                raise ImportFailed([LineError(number, _validation_message(exc))]) from exc
    return len(parsed)


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

"""What a judge scores: subjects, generic over where they come from.

A subject is a candidate text set with the reference it is compared to: an ``ok`` prediction of a
prediction run, a QA answer, and (later) a human answer. Judges see only ``candidate`` and
``reference``, never ``key``, so no run, model or person name ever reaches a judge."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from annotation.models import ReleaseStep
from scoring.models import ItemState, Outcome, Run, RunKind


@dataclass(frozen=True)
class Subject:
    kind: str  # scoring.models.SubjectKind
    key: str  # unique among a judge run's subjects, e.g. "<run name>:<sample uid>"
    sample_id: uuid.UUID | None
    candidate: dict
    reference: dict | None
    prediction_id: int | None = None
    extra: dict = field(default_factory=dict)


class SubjectError(ValueError):
    pass


def step_reference(step: ReleaseStep) -> dict:
    """A step's frozen labels as a judge receives them."""
    return {
        "local_intent": step.local_intent,
        "procedural_intent": step.procedural_intent,
        "observed_next_step": step.next_step,
        "plausible_next_steps": list(step.plausible_next_steps or []),
    }


def subjects_from_runs(runs: list[Run]) -> tuple[list[Subject], dict]:
    """The ``ok`` predictions of finished prediction runs as subjects, and the counts of what
    is not judged (predictions that failed score 0 in the full benchmark without a judge call)."""
    subjects: list[Subject] = []
    not_judged: dict[str, int] = {}
    for run in runs:
        if run.kind != RunKind.PREDICTION:
            raise SubjectError(f"{run.name} is a {run.kind} run; judges score prediction runs")
        open_items = run.items.exclude(state=ItemState.DONE).count()
        if open_items:
            raise SubjectError(
                f"run {run.name} still has {open_items} item(s) pending; judge it once it is done"
            )
        steps = {
            s.sample_id: s
            for s in ReleaseStep.objects.filter(
                release_id=run.release_id, sample_id__in=run.items.values("sample_id")
            )
        }
        for item in run.items.order_by("position").only(
            "pk", "key", "sample_id", "outcome", "prediction"
        ):
            if item.outcome != Outcome.OK:
                not_judged[item.outcome] = not_judged.get(item.outcome, 0) + 1
                continue
            subjects.append(
                Subject(
                    kind="prediction",
                    key=f"{run.name}:{item.key}",
                    sample_id=item.sample_id,
                    candidate=dict(item.prediction),
                    reference=step_reference(steps[item.sample_id]),
                    prediction_id=item.pk,
                )
            )
    return subjects, not_judged


QA_FIELDS = ("uid", "question", "reference_answer", "answer")


def subjects_from_qa_file(path: Path) -> list[Subject]:
    """QA answers to judge from JSON Lines, one object per answer: ``uid`` (unique), ``question``,
    ``reference_answer``, ``answer`` (text); validated all-or-nothing with line numbers."""
    subjects, seen = [], set()
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise SubjectError(f"{path} cannot be read: {exc}") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SubjectError(f"line {number}: not JSON ({exc.msg})") from None
        if not isinstance(record, dict):
            raise SubjectError(f"line {number}: not a JSON object")
        unknown = sorted(set(record) - set(QA_FIELDS))
        if unknown:
            raise SubjectError(f"line {number}: unknown field(s) {', '.join(unknown)}")
        for name in QA_FIELDS:
            if not isinstance(record.get(name), str) or not record[name].strip():
                raise SubjectError(f"line {number}: {name} must be non-empty text")
        if record["uid"] in seen:
            raise SubjectError(f"line {number}: uid {record['uid']} appears twice")
        seen.add(record["uid"])
        subjects.append(
            Subject(
                kind="qa_answer",
                key=record["uid"][:200],
                sample_id=None,
                candidate={"answer": record["answer"]},
                reference={
                    "question": record["question"],
                    "reference_answer": record["reference_answer"],
                },
            )
        )
    if not subjects:
        raise SubjectError(f"{path} holds no QA answers")
    return subjects


def subjects_from_qa_runs(runs: list[Run]) -> tuple[list[Subject], dict]:
    """The answers of finished QA runs to open-ended turns as QA-judge subjects: the turn's
    question, its reference answer (from the run's QA set) and the model's answer. Multiple-choice
    turns are scored by exact match without a judge; turns not ``ok`` or not asked are counted
    in ``not_judged``, never judged."""
    from review.qa.models import QaTurn

    subjects: list[Subject] = []
    not_judged: dict[str, int] = {}
    for run in runs:
        if run.kind != RunKind.QA_PREDICTION:
            raise SubjectError(f"{run.name} is a {run.kind} run; the QA judge scores QA runs")
        open_items = run.items.filter(state__in=[ItemState.PENDING, ItemState.RUNNING]).count()
        if open_items:
            raise SubjectError(
                f"run {run.name} still has {open_items} turn(s) pending; judge it once it is done"
            )
        set_id = run.manifest.qa_source.group_set_id
        turns = {
            (str(t.group.uid), t.position): t
            for t in QaTurn.objects.filter(
                group__group_set_id=set_id, group__uid__in=run.items.values("sample_id")
            ).select_related("group")
        }
        for item in run.items.order_by("position").only(
            "pk", "key", "sample_id", "state", "outcome", "prediction", "input"
        ):
            if item.input.get("options"):
                continue
            if item.outcome != Outcome.OK:
                why = item.outcome or item.state
                not_judged[why] = not_judged.get(why, 0) + 1
                continue
            turn = turns[(str(item.sample_id), int(item.input["turn"]) - 1)]
            subjects.append(
                Subject(
                    kind="qa_answer",
                    key=f"{run.name}:{item.key}",
                    sample_id=item.sample_id,
                    candidate={"answer": item.prediction["answer"]},
                    reference={"question": turn.question, "reference_answer": turn.answer},
                    prediction_id=item.pk,
                )
            )
    return subjects, not_judged


def subjects_from_campaign(campaign) -> tuple[list[Subject], dict]:
    """The human answers of a ``human_baseline`` campaign as subjects of the reference judge:
    one per (rater, step) current response, with the rater's main answers as the candidate
    (``local_intent``, ``procedural_intent``, ``next_step`` = the first Next answer) and the
    step's frozen labels as the reference, exactly as a model's prediction is judged. A
    dimension the rater marked unanswerable is sent as an empty text and scored 0 by the report
    whatever the judge says (eq. 9); a response with no answerable dimension and a broken-item
    flag get no judge call at all (counted in ``not_judged``). The key names the campaign, the
    rater's id and the step; the judge never sees it."""
    from review.baseline.kind import KIND, PART
    from review.campaigns.services import current_submissions

    if campaign.kind != KIND:
        raise SubjectError(f"campaign {campaign.name} is not a human baseline ({campaign.kind})")
    rows = (
        current_submissions(campaign=campaign)
        .filter(part=PART)
        .order_by("item__sample__sample_id", "person_id")
        .values_list(
            "person_id", "item__sample__sample_id", "item__sample__release_step", "payload"
        )
    )
    steps = {
        s.pk: s
        for s in ReleaseStep.objects.filter(pk__in=campaign.items.values("sample__release_step"))
    }
    subjects: list[Subject] = []
    not_judged: dict[str, int] = {}
    for person_id, sample_id, step_id, payload in rows:
        if payload.get("broken"):
            not_judged["broken"] = not_judged.get("broken", 0) + 1
            continue
        dims = payload["dimensions"]
        if not any(dims[d]["answerable"] for d in ("local", "procedural", "next")):
            not_judged["unanswerable"] = not_judged.get("unanswerable", 0) + 1
            continue

        def text(d, dims=dims):
            return dims[d]["answers"][0] if dims[d]["answerable"] else ""

        subjects.append(
            Subject(
                kind="human_answer",
                key=f"{campaign.name}:{person_id}:{sample_id}",
                sample_id=sample_id,
                candidate={
                    "local_intent": text("local"),
                    "procedural_intent": text("procedural"),
                    "next_step": text("next"),
                },
                reference=step_reference(steps[step_id]),
            )
        )
    return subjects, not_judged

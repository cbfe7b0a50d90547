"""Judgements made elsewhere, loaded as a finished judge run (``manage.py import_judgements``),
so reports and leaderboards use them as they use our judges' runs.

JSON Lines in the ``run_export`` judgement format (docs/models.md). Per line: ``subject`` names
what was judged — ``{"kind": "prediction", "run": RUN, "sample": UID}``, an item of one of the
prediction runs given — and ``judgement_outcome`` and ``scores`` hold the result (reference
judge: ``local``, ``procedural``, ``next`` 0-100, optional ``next_match_type``; video judge:
``gf``, ``hic``, ``tpc``, ``npf`` 0-4). Human baseline answers have their own import
(``human_imports.py``, ``--campaign``); a human subject here is refused. All-or-nothing: read
with the one JSON Lines reader (``studio.jsonl``) twice, a first pass checking every line (the
first 100 problems by line, then how many more), a second writing the rows a thousand at a time;
the provenance lists what no line gave as unknown."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from django.db import transaction

from annotation.models import ReleaseStep
from scoring.judges.services import PURPOSE
from scoring.judges.subjects import step_reference
from scoring.models import (
    Endpoint,
    ItemState,
    Judgement,
    Outcome,
    PromptPackage,
    Run,
    RunItem,
    RunKind,
)
from scoring.runs.imports import ImportRefused, file_sha256
from scoring.runs.services import RunError, provenance, run_name_check
from studio import jsonl
from studio import services as studio_services

SCALES = {
    RunKind.REFERENCE: {"local": 100, "procedural": 100, "next": 100},
    RunKind.VIDEO: {"gf": 4, "hic": 4, "tpc": 4, "npf": 4},
}
MATCH_TYPES = ("observed", "plausible", "related", "none")
MAX_JUSTIFICATION = 5000


class LineProblem(ValueError):
    """What is wrong with one line (its number is added by the caller)."""


def _scores(kind: str, record: dict) -> dict:
    scores = record.get("scores")
    if not isinstance(scores, dict):
        raise LineProblem("an ok judgement needs its scores")
    out = {}
    for name, top in SCALES[kind].items():
        value = scores.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= top:
            raise LineProblem(f"scores.{name} must be an integer 0-{top}")
        out[name] = value
    match = scores.get("next_match_type")
    if kind == RunKind.REFERENCE and match is not None:
        if match not in MATCH_TYPES:
            raise LineProblem(f"scores.next_match_type must be one of {MATCH_TYPES}")
        out["match_type"] = match
    return out


def outcome_and_scores(kind: str, record: dict) -> tuple[str, dict]:
    """The judgement's outcome and scores (ok only), or LineProblem."""
    outcome = record.get("judgement_outcome")
    if outcome not in Outcome.values:
        raise LineProblem(f"judgement_outcome must be one of {Outcome.values}")
    if outcome != Outcome.OK and record.get("scores") is not None:
        raise LineProblem("a judgement that is not ok has no scores")
    return outcome, _scores(kind, record) if outcome == Outcome.OK else {}


def justification(record: dict) -> str:
    return str(record.get("justification") or "")[:MAX_JUSTIFICATION]


def read_judgements(path: Path, check) -> tuple[int, set[str]]:
    """The first pass of a judgements import: every line through ``check(record)`` (subject,
    outcome, scores; LineProblem when wrong), nothing kept; ImportRefused naming the lines.
    Returns the count and the optional fields some line gave."""
    problems, count, given = jsonl.Problems(), 0, set()
    try:
        for number, record in jsonl.json_lines(path, problems=problems):
            try:
                check(record)
            except LineProblem as exc:
                problems.add(number, str(exc))
                continue
            count += 1
            given |= {k for k in ("justification", "call") if record.get(k)}
    except OSError as exc:
        raise RunError(f"{path} cannot be read: {exc.strerror}") from None
    if not count and not problems:
        problems.add(None, f"{path} holds no judgements")
    problems.refuse_as(ImportRefused)
    return count, given


def judged(path: Path, check):
    """The second pass: ``check(record)`` of every line (all good by now), a thousand at a time."""
    lines = jsonl.json_lines(path, problems=jsonl.Problems())
    for chunk in jsonl.chunks(lines):
        yield [(check(record), record) for _number, record in chunk]


def imported_provenance(path: Path, count: int, given: set[str]) -> dict:
    return {
        "file": Path(path).name,
        "sha256": file_sha256(path),
        "lines": count,
        "unknown": sorted({"justification", "call"} - given),
    }


@transaction.atomic
def judgements_import(
    *,
    name: str,
    path: Path,
    kind: str,
    runs: list[Run],
    endpoint: Endpoint,
    package: PromptPackage,
    user=None,
) -> Run:
    run_name_check(name)
    if kind not in SCALES:
        raise RunError("judgements are imported for the reference or the video judge")
    if package.purpose != PURPOSE[kind]:
        raise RunError(f"package {package.name} is for {package.purpose}, not {PURPOSE[kind]}")
    if not runs or any(r.kind != RunKind.PREDICTION for r in runs):
        raise RunError("name the prediction runs whose predictions were judged (--run)")
    if Run.objects.filter(name=name).exists():
        raise RunError(f"run {name} exists; an import makes a new run")
    by_run = {r.name: r for r in runs}
    fields = ("pk", "key", "sample_id", "outcome", "prediction", "run_id")
    items = {(r.name, i.key): i for r in runs for i in r.items.only(*fields)}

    def check(record: dict, seen: set) -> tuple:
        subject = record.get("subject")
        if not isinstance(subject, dict) or subject.get("kind") not in ("prediction", "human"):
            raise LineProblem('subject must be {"kind": "prediction", "run", "sample"}')
        if subject["kind"] == "human":
            raise LineProblem("human baseline answers are imported with --campaign")
        key = (subject.get("run"), subject.get("sample"))
        if not all(isinstance(k, str) for k in key) or key[0] not in by_run:
            raise LineProblem(f"run {key[0]!r} is not one of the --run given")
        item = items.get(key)
        if item is None:
            raise LineProblem(f"run {key[0]} has no sample {key[1]!r}")
        if item.outcome != Outcome.OK:
            raise LineProblem(f"{key[0]}:{key[1]} is not an ok prediction")
        if key in seen:
            raise LineProblem(f"{key[0]}:{key[1]} is judged twice")
        seen.add(key)
        return (item, *outcome_and_scores(kind, record))

    count, given = read_judgements(path, partial(check, seen=set()))
    prov = provenance(endpoint=endpoint, package=package, release=None, manifest=None)
    prov["imported"] = imported_provenance(path, count, given)
    now = studio_services.now()
    run = Run.objects.create(
        name=name,
        kind=kind,
        endpoint=endpoint,
        package=package,
        release=runs[0].release if len({r.release_id for r in runs}) == 1 else None,
        manifest=runs[0].manifest if len({r.manifest_id for r in runs}) == 1 else None,
        options={"imported": True, "unit": "candidate"},
        provenance=prov,
        status="finished",
        finished_at=now,
        created_by=user if user is not None and user.is_authenticated else None,
    )
    run.sources.set(runs)
    run_names = {r.pk: r.name for r in runs}
    release_ids = {r.release_id for r in runs}
    position = 0
    for chunk in judged(path, partial(check, seen=set())):
        steps = {
            s.sample_id: s
            for s in ReleaseStep.objects.filter(
                release_id__in=release_ids, sample_id__in=[c[0][0].sample_id for c in chunk]
            )
        }
        units = RunItem.objects.bulk_create(
            [
                RunItem(
                    run=run,
                    position=position + i,
                    key=f"{item.run_id}:{item.key}"[:200],
                    sample_id=item.sample_id,
                    state=ItemState.DONE,
                    outcome=outcome,
                    detail="imported",
                    finished_at=now,
                )
                for i, ((item, outcome, _s), _r) in enumerate(chunk)
            ]
        )
        position += len(chunk)
        Judgement.objects.bulk_create(
            [
                Judgement(
                    run=run,
                    item=unit,
                    subject_kind="prediction",
                    subject_key=f"{run_names[item.run_id]}:{item.key}",
                    prediction=item,
                    sample_id=item.sample_id,
                    candidate_id="C01",
                    position=0,
                    candidate=dict(item.prediction),
                    reference=step_reference(steps[item.sample_id]),
                    outcome=outcome,
                    justification=justification(record),
                    **scores,
                )
                for unit, ((item, outcome, scores), record) in zip(units, chunk, strict=True)
            ]
        )
    return run

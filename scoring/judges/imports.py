"""Judgements made elsewhere, loaded as a finished judge run (``manage.py import_judgements``),
so reports and leaderboards use them as they use our judges' runs.

JSON Lines in the ``run_export`` judgement format (docs/models.md). Per line: ``subject`` names
what was judged — ``{"kind": "prediction", "run": RUN, "sample": UID}``, an item of one of the
prediction runs given — and ``judgement_outcome`` and ``scores`` hold the result (reference
judge: ``local``, ``procedural``, ``next`` 0-100, optional ``next_match_type``; video judge:
``gf``, ``hic``, ``tpc``, ``npf`` 0-4). Human baseline answers have their own import
(``human_imports.py``, ``--campaign``); a human subject here is refused. All-or-nothing, with line
numbers; the provenance lists what no line gave as unknown."""

from __future__ import annotations

import hashlib
import json
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
from scoring.runs.services import RunError, provenance, run_name_check
from studio import services as studio_services

SCALES = {
    RunKind.REFERENCE: {"local": 100, "procedural": 100, "next": 100},
    RunKind.VIDEO: {"gf": 4, "hic": 4, "tpc": 4, "npf": 4},
}
MATCH_TYPES = ("observed", "plausible", "related", "none")


def _line_error(number: int, message: str) -> RunError:
    return RunError(f"line {number}: {message}")


def _scores(number: int, kind: str, record: dict) -> dict:
    scores = record.get("scores")
    if not isinstance(scores, dict):
        raise _line_error(number, "an ok judgement needs its scores")
    out = {}
    for name, top in SCALES[kind].items():
        value = scores.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= top:
            raise _line_error(number, f"scores.{name} must be an integer 0-{top}")
        out[name] = value
    match = scores.get("next_match_type")
    if kind == RunKind.REFERENCE and match is not None:
        if match not in MATCH_TYPES:
            raise _line_error(number, f"scores.next_match_type must be one of {MATCH_TYPES}")
        out["match_type"] = match
    return out


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
    try:
        lines = Path(path).read_bytes().decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise RunError(f"{path} cannot be read: {exc}") from None
    records, seen = [], set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise _line_error(number, f"not JSON ({exc.msg})") from None
        if not isinstance(record, dict):
            raise _line_error(number, "not a JSON object")
        subject = record.get("subject")
        if not isinstance(subject, dict) or subject.get("kind") not in ("prediction", "human"):
            raise _line_error(number, 'subject must be {"kind": "prediction", "run", "sample"}')
        if subject["kind"] == "human":
            raise _line_error(number, "human baseline answers are imported with --campaign")
        key = (subject.get("run"), subject.get("sample"))
        if key[0] not in by_run:
            raise _line_error(number, f"run {key[0]!r} is not one of the --run given")
        item = items.get(key)
        if item is None:
            raise _line_error(number, f"run {key[0]} has no sample {key[1]!r}")
        if item.outcome != Outcome.OK:
            raise _line_error(number, f"{key[0]}:{key[1]} is not an ok prediction")
        if key in seen:
            raise _line_error(number, f"{key[0]}:{key[1]} is judged twice")
        seen.add(key)
        outcome = record.get("judgement_outcome")
        if outcome not in Outcome.values:
            raise _line_error(number, f"judgement_outcome must be one of {Outcome.values}")
        scores = _scores(number, kind, record) if outcome == Outcome.OK else {}
        if outcome != Outcome.OK and record.get("scores") is not None:
            raise _line_error(number, "a judgement that is not ok has no scores")
        records.append((item, outcome, scores, record))
    if not records:
        raise RunError(f"{path} holds no judgements")
    steps = {
        s.sample_id: s
        for s in ReleaseStep.objects.filter(
            release_id__in={r.release_id for r in runs},
            sample_id__in=[i.sample_id for i, *_ in records],
        )
    }
    prov = provenance(endpoint=endpoint, package=package, release=None, manifest=None)
    prov["imported"] = {
        "file": Path(path).name,
        "sha256": hashlib.sha256(Path(path).read_bytes()).hexdigest(),
        "lines": len(records),
        "unknown": sorted(
            {"justification", "call"} - {k for *_, r in records for k in r if r.get(k)}
        ),
    }
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
    units = RunItem.objects.bulk_create(
        [
            RunItem(
                run=run,
                position=i,
                key=f"{item.run_id}:{item.key}"[:200],
                sample_id=item.sample_id,
                state=ItemState.DONE,
                outcome=outcome,
                detail="imported",
                finished_at=now,
            )
            for i, (item, outcome, _s, _r) in enumerate(records)
        ],
        batch_size=1000,
    )
    run_names = {r.pk: r.name for r in runs}
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
                justification=str(record.get("justification") or "")[:5000],
                **scores,
            )
            for unit, (item, outcome, scores, record) in zip(units, records, strict=True)
        ],
        batch_size=1000,
    )
    return run

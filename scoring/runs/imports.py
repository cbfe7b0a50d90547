"""Predictions made elsewhere, loaded as a finished prediction run (``manage.py
import_predictions``), so judges, studies and leaderboards work on them as on our own runs.

The file is JSON Lines in the ``run_export`` prediction format (docs/models.md); per line only
``sample``, ``outcome`` and ``prediction`` are required. What the file does not say stays
unknown: the run's provenance lists the fields no line gave (``unknown``), never a guessed
value. Read with the one JSON Lines reader (``studio.jsonl``) twice, so memory does not grow
with the file: the first pass checks every line (the first 100 problems by line, then how many
more; nothing is written on any), the second writes the rows."""

from __future__ import annotations

import hashlib
from pathlib import Path

from django.db import transaction
from pydantic import ValidationError

from scoring.models import Endpoint, ItemState, Outcome, PromptPackage, Run, RunItem, RunKind
from scoring.packages.contracts import Prediction
from scoring.providers.client import MAX_KEPT_CHARS
from scoring.runs.services import CONDITIONS, RunError, provenance, run_name_check, target_steps
from studio import jsonl
from studio import services as studio_services

MAX_TEXT = MAX_KEPT_CHARS  # a raw response as long as a run keeps one

KNOWN = {
    "format",
    "run",
    "sample",
    "condition",
    "outcome",
    "detail",
    "prediction",
    "raw_response",
    "media_sha256",
    "media_interface",
    "package_sha256",
    "package",
    "requested_model",
    "returned_model",
    "endpoint",
    "sampling",
    "manifest",
    "cache_key",
    "cached_from",
    "attempts",
    "tokens",
    "finished",
}
PROVENANCE_FIELDS = ("returned_model", "package_sha256", "media_sha256", "media_interface")


def _text(value, limit: int) -> str:
    return value[:limit] if isinstance(value, str) else ""


class ImportRefused(RunError, jsonl.ImportRefused):
    """A file refused (nothing written): a RunError to the run commands, with the problems of
    the one JSON Lines reader (the first 100 by line, then how many more)."""


def _check(number: int, record: dict, *, index: dict, condition: str, seen: set) -> str | None:
    """Why the line is refused, or None (its prediction is normalised in place)."""
    unknown = sorted(set(record) - KNOWN)
    if unknown:
        return f"unknown field(s) {', '.join(unknown)}"
    sample = record.get("sample")
    if not isinstance(sample, str) or sample not in index:
        return f"sample {sample!r} is not a step of this set"
    if sample in seen:
        return f"sample {sample} appears twice"
    seen.add(sample)
    if record.get("condition") not in (None, condition):
        return f"condition {record['condition']!r}, not {condition}"
    outcome = record.get("outcome")
    if outcome not in Outcome.values:
        return f"outcome must be one of {', '.join(Outcome.values)}"
    prediction = record.get("prediction")
    if outcome == Outcome.OK:
        try:
            prediction = Prediction.model_validate(prediction).model_dump()
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first["loc"]) or "prediction"
            return f"prediction {where}: {first['msg']}"
    elif prediction is not None:
        return "a prediction that is not ok must be null"
    record["prediction"] = prediction
    return None


def _records(path: Path, problems: jsonl.Problems, *, index: dict, condition: str):
    """The good records of the file, one at a time; the bad lines go to ``problems``."""
    seen: set[str] = set()  # samples given so far: bounded by the set's steps
    for number, record in jsonl.json_lines(path, problems=problems, max_chars=MAX_TEXT):
        problem = _check(number, record, index=index, condition=condition, seen=seen)
        if problem is None:
            yield record
        else:
            problems.add(number, problem)


def file_sha256(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


@transaction.atomic
def predictions_import(
    *,
    name: str,
    path: Path,
    endpoint: Endpoint,
    package: PromptPackage,
    condition: str,
    release=None,
    manifest=None,
    user=None,
) -> Run:
    """A finished prediction run ``name`` holding the file's predictions."""
    run_name_check(name)
    if manifest is not None:
        release = manifest.release
    if release is None or not release.is_frozen:
        raise RunError("predictions are imported into a frozen release or manifest")
    if condition not in CONDITIONS:
        raise RunError(f"unknown condition {condition!r}; one of: {', '.join(CONDITIONS)}")
    if package.purpose != "prediction":
        raise RunError(f"package {package.name} is for {package.purpose}, not prediction")
    if Run.objects.filter(name=name).exists():
        raise RunError(f"run {name} exists; an import makes a new run")
    steps = target_steps(release=release, manifest=manifest)
    index = {str(s.sample_id): s for s in steps}
    # First pass: every line checked, nothing kept but what the provenance says.
    problems, count, given, stated = jsonl.Problems(), 0, set(), set()
    try:
        for record in _records(path, problems, index=index, condition=condition):
            count += 1
            given |= {f for f in PROVENANCE_FIELDS if record.get(f)}
            if record.get("package_sha256"):
                stated.add(str(record["package_sha256"]))
    except OSError as exc:
        raise RunError(f"{path} cannot be read: {exc.strerror}") from None
    if not count and not problems:
        problems.add(None, f"{path} holds no predictions")
    if problems:
        problems.refuse_as(ImportRefused)
    prov = provenance(endpoint=endpoint, package=package, release=release, manifest=manifest)
    prov["imported"] = {
        "file": Path(path).name,
        "sha256": file_sha256(path),
        "lines": count,
        "unknown": sorted(set(PROVENANCE_FIELDS) - given),
        "package_as_stated": sorted(stated),
        "missing_steps": len(steps) - count,
    }
    now = studio_services.now()
    run = Run.objects.create(
        name=name,
        kind=RunKind.PREDICTION,
        release=release,
        manifest=manifest,
        condition=condition,
        endpoint=endpoint,
        package=package,
        options={"imported": True},
        provenance=prov,
        status="finished",
        finished_at=now,
        created_by=user if user is not None and user.is_authenticated else None,
    )
    # Second pass: the rows, a thousand at a time.
    records = _records(path, jsonl.Problems(), index=index, condition=condition)
    for start, chunk in enumerate(jsonl.chunks(records)):
        RunItem.objects.bulk_create(
            [
                RunItem(
                    run=run,
                    position=start * 1000 + i,
                    key=r["sample"],
                    sample_id=index[r["sample"]].sample_id,
                    state=ItemState.DONE,
                    outcome=r["outcome"],
                    prediction=r["prediction"],
                    returned_model=_text(r.get("returned_model"), 200),
                    media_sha256=_text(r.get("media_sha256"), 64),
                    interface=_text(r.get("media_interface"), 20),
                    raw_response=_text(r.get("raw_response"), MAX_TEXT),
                    detail=_text(r.get("detail"), 500) or "imported",
                    finished_at=now,
                )
                for i, r in enumerate(chunk)
            ]
        )
    return run

"""Predictions made elsewhere, loaded as a finished prediction run (``manage.py
import_predictions``), so judges, studies and leaderboards work on them as on our own runs.

The file is JSON Lines in the ``run_export`` prediction format (docs/models.md); per line only
``sample``, ``outcome`` and ``prediction`` are required. What the file does not say stays
unknown: the run's provenance lists the fields no line gave (``unknown``), never a guessed
value. Validated all-or-nothing with line numbers; nothing is written on any error."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from django.db import transaction
from pydantic import ValidationError

from scoring.models import Endpoint, ItemState, Outcome, PromptPackage, Run, RunItem, RunKind
from scoring.packages.contracts import Prediction
from scoring.runs.services import CONDITIONS, RunError, provenance, run_name_check, target_steps
from studio import services as studio_services

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


def _parse(path: Path, *, index: dict, condition: str) -> list[dict]:
    try:
        raw = Path(path).read_bytes()
        lines = raw.decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise RunError(f"{path} cannot be read: {exc}") from None
    records, seen = [], set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RunError(f"line {number}: not JSON ({exc.msg})") from None
        if not isinstance(record, dict):
            raise RunError(f"line {number}: not a JSON object")
        unknown = sorted(set(record) - KNOWN)
        if unknown:
            raise RunError(f"line {number}: unknown field(s) {', '.join(unknown)}")
        sample = record.get("sample")
        if sample not in index:
            raise RunError(f"line {number}: sample {sample!r} is not a step of this set")
        if sample in seen:
            raise RunError(f"line {number}: sample {sample} appears twice")
        seen.add(sample)
        if record.get("condition") not in (None, condition):
            raise RunError(f"line {number}: condition {record['condition']!r}, not {condition}")
        outcome = record.get("outcome")
        if outcome not in Outcome.values:
            raise RunError(f"line {number}: outcome must be one of {', '.join(Outcome.values)}")
        prediction = record.get("prediction")
        if outcome == Outcome.OK:
            try:
                prediction = Prediction.model_validate(prediction).model_dump()
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(x) for x in first["loc"]) or "prediction"
                raise RunError(f"line {number}: prediction {where}: {first['msg']}") from None
        elif prediction is not None:
            raise RunError(f"line {number}: a prediction that is not ok must be null")
        record["prediction"] = prediction
        records.append(record)
    if not records:
        raise RunError(f"{path} holds no predictions")
    return records


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
    records = _parse(path, index=index, condition=condition)
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    prov = provenance(endpoint=endpoint, package=package, release=release, manifest=manifest)
    given = {f for f in PROVENANCE_FIELDS if any(r.get(f) for r in records)}
    prov["imported"] = {
        "file": Path(path).name,
        "sha256": digest,
        "lines": len(records),
        "unknown": sorted(set(PROVENANCE_FIELDS) - given),
        "package_as_stated": sorted(
            {r["package_sha256"] for r in records if r.get("package_sha256")}
        ),
        "missing_steps": len(steps) - len(records),
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
    RunItem.objects.bulk_create(
        [
            RunItem(
                run=run,
                position=i,
                key=r["sample"],
                sample_id=index[r["sample"]].sample_id,
                state=ItemState.DONE,
                outcome=r["outcome"],
                prediction=r["prediction"],
                returned_model=_text(r.get("returned_model"), 200),
                media_sha256=_text(r.get("media_sha256"), 64),
                interface=_text(r.get("media_interface"), 20),
                raw_response=_text(r.get("raw_response"), 1_000_000),
                detail=_text(r.get("detail"), 500) or "imported",
                finished_at=now,
            )
            for i, r in enumerate(records)
        ],
        batch_size=1000,
    )
    return run

"""Judgements of human-baseline answers made elsewhere, loaded as a finished reference-judge run
over a campaign (``manage.py import_judgements NAME FILE --campaign C``), so the baseline report
uses them as it uses our judge's runs (docs/baseline.md).

JSON Lines in the ``run_export`` judgement format, with a human subject per line::

    {"subject": {"kind": "human", "campaign": C, "rater": USER, "sample": UID},
     "judgement_outcome": "ok", "scores": {"local": 80, "procedural": 0, "next": 55}}

The subject must be a judged response of the campaign (an answered response; abstentions and
broken items are never judged). All-or-nothing with line numbers."""

from __future__ import annotations

import hashlib
import json
import uuid
from pathlib import Path

from django.db import transaction

from scoring.judges.imports import SCALES, _line_error, _scores
from scoring.judges.services import PURPOSE
from scoring.judges.subjects import SubjectError, subjects_from_campaign
from scoring.models import ItemState, Judgement, Outcome, Run, RunItem, RunKind
from scoring.runs.services import RunError, provenance, run_name_check
from studio import services as studio_services


@transaction.atomic
def human_judgements_import(
    *, name: str, path: Path, campaign, endpoint, package, kind: str = RunKind.REFERENCE, user=None
) -> Run:
    run_name_check(name)
    if kind != RunKind.REFERENCE:
        raise RunError("human answers are scored by the reference judge")
    if package.purpose != PURPOSE[kind]:
        raise RunError(f"package {package.name} is for {package.purpose}, not {PURPOSE[kind]}")
    if Run.objects.filter(name=name).exists():
        raise RunError(f"run {name} exists; an import makes a new run")
    try:
        subjects, _ = subjects_from_campaign(campaign)
    except SubjectError as exc:
        raise RunError(str(exc)) from None
    by_key = {s.key: s for s in subjects}
    people = dict(campaign.people.values_list("username", "pk"))
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
        if not isinstance(subject, dict) or subject.get("kind") != "human":
            raise _line_error(
                number, 'subject must be {"kind": "human", "campaign", "rater", "sample"}'
            )
        if subject.get("campaign") != campaign.name:
            named = subject.get("campaign")
            raise _line_error(number, f"campaign {named!r} is not {campaign.name}")
        person = people.get(subject.get("rater"))
        if person is None:
            raise _line_error(number, f"{subject.get('rater')!r} is not a rater of the campaign")
        try:
            sample = uuid.UUID(str(subject.get("sample")))
        except ValueError:
            raise _line_error(number, "sample must be a step uid") from None
        key = f"{campaign.name}:{person}:{sample}"
        found = by_key.get(key)
        if found is None:
            raise _line_error(
                number, "no judged response of this rater on this step (none, broken, or nothing "
                "answerable)",
            )  # fmt: skip
        if key in seen:
            raise _line_error(number, "this response is judged twice")
        seen.add(key)
        outcome = record.get("judgement_outcome")
        if outcome not in Outcome.values:
            raise _line_error(number, f"judgement_outcome must be one of {Outcome.values}")
        scores = _scores(number, kind, record) if outcome == Outcome.OK else {}
        if outcome != Outcome.OK and record.get("scores") is not None:
            raise _line_error(number, "a judgement that is not ok has no scores")
        records.append((found, outcome, scores, record))
    if not records:
        raise RunError(f"{path} holds no judgements")
    manifest = campaign.manifest
    prov = provenance(endpoint=endpoint, package=package, release=manifest.release,
                      manifest=manifest)  # fmt: skip
    prov["campaign"] = campaign.name
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
        release=manifest.release,
        manifest=manifest,
        options={"imported": True, "unit": "candidate", "scales": SCALES[kind]},
        provenance=prov,
        status="finished",
        finished_at=now,
        created_by=user if user is not None and user.is_authenticated else None,
    )
    units = RunItem.objects.bulk_create(
        [
            RunItem(
                run=run,
                position=i,
                key=s.key[:200],
                sample_id=s.sample_id,
                state=ItemState.DONE,
                outcome=outcome,
                detail="imported",
                finished_at=now,
            )
            for i, (s, outcome, _scores_, _r) in enumerate(records)
        ],
        batch_size=1000,
    )
    Judgement.objects.bulk_create(
        [
            Judgement(
                run=run,
                item=unit,
                subject_kind=s.kind,
                subject_key=s.key,
                sample_id=s.sample_id,
                candidate_id="C01",
                position=0,
                candidate=s.candidate,
                reference=s.reference,
                outcome=outcome,
                justification=str(record.get("justification") or "")[:5000],
                **scores,
            )
            for unit, (s, outcome, scores, record) in zip(units, records, strict=True)
        ],
        batch_size=1000,
    )
    return run

"""Judgements of human-baseline answers made elsewhere, loaded as a finished reference-judge run
over a campaign (``manage.py import_judgements NAME FILE --campaign C``), so the baseline report
uses them as it uses our judge's runs (docs/baseline.md).

JSON Lines in the ``run_export`` judgement format, with a human subject per line::

    {"subject": {"kind": "human", "campaign": C, "rater": USER, "sample": UID},
     "judgement_outcome": "ok", "scores": {"local": 80, "procedural": 0, "next": 55}}

The subject must be a judged response of the campaign (an answered response; abstentions and
broken items are never judged). All-or-nothing, read as ``imports.py`` reads (the one JSON Lines
reader, two passes, the first 100 problems by line)."""

from __future__ import annotations

import uuid
from functools import partial
from pathlib import Path

from django.db import transaction

from scoring.judges.imports import (
    SCALES,
    LineProblem,
    imported_provenance,
    judged,
    justification,
    outcome_and_scores,
    read_judgements,
)
from scoring.judges.services import PURPOSE
from scoring.judges.subjects import SubjectError, subjects_from_campaign
from scoring.models import ItemState, Judgement, Run, RunItem, RunKind
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

    def check(record: dict, seen: set) -> tuple:
        subject = record.get("subject")
        if not isinstance(subject, dict) or subject.get("kind") != "human":
            raise LineProblem('subject must be {"kind": "human", "campaign", "rater", "sample"}')
        if subject.get("campaign") != campaign.name:
            raise LineProblem(f"campaign {subject.get('campaign')!r} is not {campaign.name}")
        rater = subject.get("rater")
        person = people.get(rater) if isinstance(rater, str) else None
        if person is None:
            raise LineProblem(f"{rater!r} is not a rater of the campaign")
        try:
            sample = uuid.UUID(str(subject.get("sample")))
        except ValueError:
            raise LineProblem("sample must be a step uid") from None
        key = f"{campaign.name}:{person}:{sample}"
        found = by_key.get(key)
        if found is None:
            raise LineProblem(
                "no judged response of this rater on this step (none, broken, or nothing "
                "answerable)"
            )
        if key in seen:
            raise LineProblem("this response is judged twice")
        seen.add(key)
        return (found, *outcome_and_scores(kind, record))

    count, given = read_judgements(path, partial(check, seen=set()))
    manifest = campaign.manifest
    prov = provenance(endpoint=endpoint, package=package, release=manifest.release,
                      manifest=manifest)  # fmt: skip
    prov["campaign"] = campaign.name
    prov["imported"] = imported_provenance(path, count, given)
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
    position = 0
    for chunk in judged(path, partial(check, seen=set())):
        units = RunItem.objects.bulk_create(
            [
                RunItem(
                    run=run,
                    position=position + i,
                    key=s.key[:200],
                    sample_id=s.sample_id,
                    state=ItemState.DONE,
                    outcome=outcome,
                    detail="imported",
                    finished_at=now,
                )
                for i, ((s, outcome, _scores), _r) in enumerate(chunk)
            ]
        )
        position += len(chunk)
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
                    justification=justification(record),
                    **scores,
                )
                for unit, ((s, outcome, scores), record) in zip(units, chunk, strict=True)
            ]
        )
    return run

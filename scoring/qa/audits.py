"""Shortcut and modality audits of QA runs (docs/qa-evaluation.md, "Audits").

The same frozen QA manifest, run by one or more models under ``text_only``, ``visual_only`` and
``audio_only`` (and ``full`` beside them), each QA run judged by the QA judge where it has
open-ended answers. ``qa_audit_create`` reads what every group came to under every (model,
condition) (``scoring.qa.verdicts``), applies the rules (``scoring.qa.audit_rules``) and keeps
the result with the names, ids and hashes of the runs it read (``QaAudit``): written once, never
recomputed, so its flags and its filter list stay the same when later runs come.

A model is an endpoint: the runs of one endpoint are one model's. ``clip`` is the old name of
``visual_only`` (runs made before the media choices were named).

The filter list: JSON Lines, one line per flagged group in uid order, each a canonical JSON object
``{"format": "intent-studio.qa-flag/1", "group": uid, "flags": [...], "modality": ...,
"evidence": {flag: {"conditions": [...], "voters": [...], "correct": [...]}}, "audit": name,
"manifest": name, "manifest_sha256": ...}``; ``filter_sha256`` is the SHA-256 of its bytes.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict

from django.core.exceptions import ValidationError
from django.db import transaction

from review.qa.models import QaGroup
from review.qa.sampling import qa_manifest_freeze, qa_manifest_uids, uids_design
from scoring.models import ItemState, Outcome, QaAudit, Run, RunKind, RunStatus
from scoring.qa.audit_rules import (
    AUDIO_ONLY,
    CONDITIONS,
    FLAGS,
    FULL,
    TEXT_ONLY,
    VISUAL_ONLY,
    audit_groups,
    flag_counts,
)
from scoring.qa.runs import OLD_NAMES, qa_manifest_source
from scoring.qa.verdicts import group_verdicts, qa_judge_run, turn_verdicts
from scoring.runs.services import RunError, run_name_check
from studio.canonical import canonical_bytes
from studio.vocabulary import label, vocabulary

FLAG_FORMAT = "intent-studio.qa-flag/1"
vocabulary(
    "qa_audit_flag",
    [
        ("language_shortcut", "Language shortcut"),
        ("redundant_modality", "Redundant modality"),
        ("mislabelled_modality", "Mislabelled modality"),
    ],
    title="Flag",
)
vocabulary(
    "qa_audit_condition",
    [
        (FULL, "Picture and sound"),
        (TEXT_ONLY, "Text only"),
        (VISUAL_ONLY, "Picture only"),
        (AUDIO_ONLY, "Sound only"),
    ],
    title="Condition",
)
vocabulary(
    "qa_audit_verdict",
    [
        ("correct", "right"),
        ("incorrect", "wrong"),
        ("review", "a review case"),
        ("unjudged", "not judged"),
        ("error", "failed"),
        ("pending", "still open"),
    ],
    title="Answer",
)


def run_condition(run: Run) -> str:
    """A QA run's media choice, an old name (``clip``) as the choice it names."""
    return OLD_NAMES.get(run.condition, run.condition)


def _judge_for(run: Run, judges: list[Run]) -> Run | None:
    """The judge run given for ``run`` (one of ``judges`` over it), else the newest finished."""
    given = [j for j in judges if run.pk in {s.pk for s in j.sources.all()}]
    if len(given) > 1:
        raise RunError(f"more than one judge run given for {run.name}")
    if given:
        if given[0].status != RunStatus.FINISHED:
            raise RunError(f"judge run {given[0].name} is not finished")
        return given[0]
    return qa_judge_run(run)


def _open_answers(run: Run) -> int:
    return sum(
        1
        for data in run.items.filter(state=ItemState.DONE, outcome=Outcome.OK).values_list(
            "input", flat=True
        )
        if not data.get("options")
    )


def check_runs(runs: dict[str, list[Run]], judges: list[Run]) -> tuple[list[dict], object]:
    """``runs``: condition -> QA runs. Refuses (RunError) runs of other kinds, of other manifests,
    unfinished, under another condition than the one they are given for, two of one model under
    one condition, judge runs that are not QA judge runs, and runs with open-ended answers and no
    finished QA judge run. Returns the inputs (one dict per run) and the manifest."""
    unknown = sorted(set(runs) - set(CONDITIONS))
    if unknown:
        raise RunError(f"unknown condition {unknown[0]!r}; one of: {', '.join(CONDITIONS)}")
    if not any(runs.get(c) for c in (TEXT_ONLY, VISUAL_ONLY, AUDIO_ONLY)):
        raise RunError("an audit needs text-only, picture-only or sound-only runs")
    for judge in judges:
        judge.refresh_from_db(fields=["status"])
        if judge.kind != RunKind.QA:
            raise RunError(f"{judge.name} is not a QA judge run ({label('run_kind', judge.kind)})")
    manifest, inputs, seen = None, [], set()
    for condition in CONDITIONS:
        for run in runs.get(condition, []):
            if run.kind != RunKind.QA_PREDICTION:
                raise RunError(f"{run.name} is not a QA run ({label('run_kind', run.kind)})")
            if manifest is None:
                manifest = run.manifest
            elif run.manifest_id != manifest.pk:
                raise RunError(
                    f"{run.name} asks manifest {run.manifest.name}, not {manifest.name}: an "
                    "audit compares runs of one QA manifest"
                )
            if run_condition(run) != condition:
                raise RunError(f"{run.name} was run with media {run.condition}, not {condition}")
            run.refresh_from_db(fields=["status"])
            if run.status != RunStatus.FINISHED:
                raise RunError(f"{run.name} is {run.status}; audit finished runs only")
            model = run.endpoint.name
            if (model, condition) in seen:
                raise RunError(f"two {condition} runs of {model}: give one per model")
            seen.add((model, condition))
            judge = _judge_for(run, judges)
            if judge is None and _open_answers(run):
                raise RunError(
                    f"{run.name} has open-ended answers and no finished QA judge run: judge it "
                    f"first (manage.py judge NAME --kind qa --run {run.name} ...)"
                )
            inputs.append(
                {
                    "model": model,
                    "condition": condition,
                    "run": run.name,
                    "run_id": run.pk,
                    "media": run.condition,
                    "package_sha256": run.package.sha256,
                    "endpoint_model": run.endpoint.model,
                    "judge_run": judge.name if judge else None,
                    "judge_run_id": judge.pk if judge else None,
                    "judge_package_sha256": judge.package.sha256 if judge else None,
                }
            )
    used = {i["judge_run_id"] for i in inputs}
    unused = [j.name for j in judges if j.pk not in used]
    if unused:
        raise RunError(f"judge run {unused[0]} judges none of the audited runs")
    qa_manifest_source(manifest)
    return inputs, manifest


def audit_result(inputs: list[dict], manifest) -> dict:
    """Every group's verdicts, votes and flags, and the counts (read from the stored runs)."""
    source = qa_manifest_source(manifest)
    groups = {
        str(uid): (modality, structure, category)
        for uid, modality, structure, category in QaGroup.objects.filter(
            group_set=source.group_set, uid__in=qa_manifest_uids(manifest)
        ).values_list("uid", "modality", "structure", "category")
    }
    verdicts: dict[str, dict[str, dict[str, str]]] = defaultdict(dict)
    runs = {r.pk: r for r in Run.objects.filter(pk__in=[i["run_id"] for i in inputs])}
    judges = {r.pk: r for r in Run.objects.filter(pk__in=[i["judge_run_id"] for i in inputs])}
    for i in inputs:
        judged = turn_verdicts(runs[i["run_id"]], judge_run=judges.get(i["judge_run_id"]))
        verdicts[i["model"]][i["condition"]] = group_verdicts(judged)
    audits = audit_groups(verdicts, {g: v[0] for g, v in groups.items()})
    rows = []
    for audit in audits:
        _modality, structure, category = groups[audit.group]
        rows.append(
            {
                "group": audit.group,
                "modality": audit.modality,
                "structure": structure,
                "category": category,
                "flags": audit.flags,
                "votes": [
                    {
                        "flag": v.flag,
                        "conditions": list(v.conditions),
                        "voters": list(v.voters),
                        "correct": list(v.yes),
                    }
                    for v in audit.votes
                ],
                "verdicts": {
                    m: {c: by_group.get(audit.group) for c, by_group in sorted(by_c.items())}
                    for m, by_c in sorted(verdicts.items())
                },
            }
        )
    return {
        "groups": rows,
        "counts": flag_counts(audits),
        "models": sorted(verdicts),
        "conditions": [c for c in CONDITIONS if any(c in v for v in verdicts.values())],
    }


def filter_lines(*, name: str, manifest, result: dict) -> list[dict]:
    """The filter list's objects: one per flagged group, in uid order."""
    lines = []
    for row in result["groups"]:
        if not row["flags"]:
            continue
        lines.append(
            {
                "format": FLAG_FORMAT,
                "group": row["group"],
                "flags": row["flags"],
                "modality": row["modality"],
                "evidence": {
                    v["flag"]: {k: v[k] for k in ("conditions", "voters", "correct")}
                    for v in row["votes"]
                    if v["flag"] in row["flags"]
                },
                "audit": name,
                "manifest": manifest.name,
                "manifest_sha256": manifest.manifest_sha256,
            }
        )
    return lines


def filter_data(*, name: str, manifest, result: dict) -> bytes:
    """The filter list (JSON Lines, canonical objects)."""
    lines = filter_lines(name=name, manifest=manifest, result=result)
    return b"".join(canonical_bytes(line) + b"\n" for line in lines)


def filter_bytes(audit: QaAudit) -> bytes:
    """The audit's filter list."""
    return filter_data(name=audit.name, manifest=audit.manifest, result=audit.result)


def flagged_uids(audit: QaAudit) -> list[str]:
    return [row["group"] for row in audit.result["groups"] if row["flags"]]


@transaction.atomic
def qa_audit_create(*, name: str, runs: dict[str, list[Run]], judges=(), user=None) -> QaAudit:
    """Audit ``runs`` (condition -> QA runs) and keep the result (nothing written on a refusal)."""
    run_name_check(name)
    if QaAudit.objects.filter(name=name).exists():
        raise RunError(f"an audit named {name} already exists")
    judges = list(judges)
    inputs, manifest = check_runs(runs, judges)
    result = audit_result(inputs, manifest)
    result["manifest"] = {
        "name": manifest.name,
        "manifest_sha256": manifest.manifest_sha256,
        "sample_list_sha256": manifest.sample_list_sha256,
    }
    data = filter_data(name=name, manifest=manifest, result=result)
    audit = QaAudit.objects.create(
        name=name,
        manifest=manifest,
        inputs=inputs,
        result=result,
        filter_sha256=hashlib.sha256(data).hexdigest(),
        created_by=user if user is not None and user.is_authenticated else None,
    )
    audit.runs.set(
        [i["run_id"] for i in inputs] + [i["judge_run_id"] for i in inputs if i["judge_run_id"]]
    )
    return audit


def runs_of_endpoints(*, manifest, endpoints) -> dict[str, list[Run]]:
    """For each endpoint, its newest finished QA run of ``manifest`` under each condition."""
    picked: dict[str, list[Run]] = defaultdict(list)
    for endpoint in endpoints:
        found = {}
        for run in Run.objects.filter(
            kind=RunKind.QA_PREDICTION,
            manifest=manifest,
            endpoint=endpoint,
            status=RunStatus.FINISHED,
        ).order_by("-finished_at", "-id"):
            found.setdefault(run_condition(run), run)
        if not found:
            raise RunError(f"{endpoint.name} has no finished QA run of {manifest.name}")
        for condition, run in found.items():
            if condition in CONDITIONS:
                picked[condition].append(run)
    return dict(picked)


@transaction.atomic
def audit_campaign(*, audit: QaAudit, manifest_name: str, campaign_name: str, people, seed: int,
                   author, instructions: str = "") -> object:  # fmt: skip
    """A QA manifest of exactly the audit's flagged groups (its design records the filter list's
    SHA-256) and a ``qa_review`` campaign over it; nothing written on a refusal
    (ValidationError)."""
    from review.campaigns.services import campaign_create

    uids = flagged_uids(audit)
    if not uids:
        raise ValidationError({"audit": f"audit {audit.name} flagged no group"})
    source = qa_manifest_source(audit.manifest)
    manifest = qa_manifest_freeze(
        group_set=source.group_set,
        name=manifest_name,
        seed=seed,
        params=uids_design(uids, list_sha256=audit.filter_sha256),
        author=author,
    )
    return campaign_create(
        name=campaign_name,
        kind="qa_review",
        manifest=manifest,
        people=list(people),
        seed=seed,
        author=author,
        instructions=instructions
        or f"Review the groups the audit {audit.name} flagged: is the evidence each question "
        "claims to need really needed to answer it?",
    )


def audits_of_run(run: Run) -> list[QaAudit]:
    return list(run.qa_audits.order_by("name"))


def run_page_part(run: Run) -> dict:
    """The audits that read a QA run, linked from its page."""
    audits = audits_of_run(run)
    return {"qa_audits": audits} if audits else {}


__all__ = ["FLAGS", "FLAG_FORMAT", "RunError", "qa_audit_create"]

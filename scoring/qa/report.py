"""The QA report (docs/qa-evaluation.md, "Report"): how often one or more QA runs were right, by
interaction structure, semantic category, required modality and turn position, with intervals,
and paired differences between two runs on the same groups.

Every number comes from stored records: each turn's verdict (``scoring.qa.verdicts``: exact
match for a multiple-choice turn, the newest finished QA judge run for an open-ended one) and
the group's fields in the run's QA group set.

- **Accuracy** = correct / (correct + incorrect) over turns. Review cases, unjudged turns,
  errors, turns not asked and turns still pending are counted apart, never as wrong.
- **Mean score**: the mean 0-5 judge score over judged (correct or incorrect) open-ended turns.
  A multiple-choice turn has no score and contributes nothing to it.
- Each rate: a Wilson interval (``z`` of ``SETTINGS``) and a percentile bootstrap interval of
  the mean that resamples source videos (``scoring.stats.bootstrap``, ``n_resamples`` and
  ``seed`` of ``SETTINGS``); a mean score has the bootstrap interval only.
- A cell with fewer than ``min_questions`` (3) judged turns shows no rate: ``few`` is true and
  its rate, mean and intervals are null.
- **Paired differences** (run A - run B) over the turns (group and turn number) both runs have,
  on the turns judged in both (the common valid set), with the clustered interval of
  ``scoring.stats.bootstrap.paired_difference``; strata by run A's groups; and how far the two
  agree on which turns are right (the four counts, raw agreement, Fleiss' kappa with the two runs
  as two raters).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass

import numpy as np

from review.qa.models import Modality, QaGroup, Structure
from scoring.models import Run, RunKind
from scoring.qa.verdicts import (
    CORRECT,
    INCORRECT,
    TURN_STATUSES,
    group_verdicts,
    qa_judge_run,
    turn_verdicts,
)
from scoring.stats import fleiss_kappa, raw_agreement, wilson_interval
from scoring.stats.bootstrap import clustered_bootstrap_rows
from studio.vocabulary import label

FORMAT = "intent-studio.qa-report/1"
SETTINGS = {"confidence": 0.95, "z": 1.96, "n_resamples": 2000, "seed": 0, "min_questions": 3}
STRATA = ("structure", "category", "modality", "turn")
FEW = "fewer than 3 questions"


class ReportError(ValueError):
    pass


@dataclass
class RunRecords:
    """One QA run's turns as arrays (one entry per turn, in dialogue order)."""

    run: Run
    judge: Run | None
    keys: list[tuple[str, int]]  # (group uid, turn)
    status: list[str]
    correct: np.ndarray  # 1 / 0 for a judged turn, nan otherwise
    score: np.ndarray  # 0-5 for a judged open-ended turn, nan otherwise
    video: np.ndarray  # the group's source video (the bootstrap's cluster)
    fields: dict[str, list[str]]  # structure, category, modality, turn -> per turn
    final: np.ndarray  # bool: the last turn of a multi-turn group
    multi: np.ndarray  # bool: a turn of a multi-turn group
    groups: dict[str, str]  # group uid -> group verdict
    group_info: dict[str, tuple]  # group uid -> (structure, category, modality, video, turns)
    records_sha256: str


def _none(x) -> float | None:
    return None if x is None or not math.isfinite(float(x)) else float(x)


def run_records(run: Run) -> RunRecords:
    if run.kind != RunKind.QA_PREDICTION:
        raise ReportError(f"{run.name} is a {run.kind} run, not a QA run")
    judge = qa_judge_run(run)
    verdicts = turn_verdicts(run, judge_run=judge)
    info = {
        str(uid): rest
        for uid, *rest in QaGroup.objects.filter(
            group_set_id=run.manifest.qa_source.group_set_id,
            uid__in=run.items.values("sample_id"),
        ).values_list("uid", "structure", "category", "modality", "video_id", "turn_count")
    }
    n = len(verdicts)
    correct, score = np.full(n, np.nan), np.full(n, np.nan)
    for i, v in enumerate(verdicts):
        if v.status in (CORRECT, INCORRECT):
            correct[i] = 1.0 if v.status == CORRECT else 0.0
            if v.kind == "open" and v.score is not None:
                score[i] = float(v.score)
    turns = np.array([info[v.group][4] for v in verdicts], dtype=np.int64)
    numbers = np.array([v.turn for v in verdicts], dtype=np.int64)
    text = json.dumps([[v.group, v.turn, v.kind, v.status, v.score] for v in verdicts])
    return RunRecords(
        run=run,
        judge=judge,
        keys=[(v.group, v.turn) for v in verdicts],
        status=[v.status for v in verdicts],
        correct=correct,
        score=score,
        video=np.array([info[v.group][3] for v in verdicts], dtype=np.int64),
        fields={
            "structure": [info[v.group][0] for v in verdicts],
            "category": [info[v.group][1] for v in verdicts],
            "modality": [info[v.group][2] for v in verdicts],
            "turn": [str(v.turn) for v in verdicts],
        },
        final=(turns > 1) & (numbers == turns),
        multi=turns > 1,
        groups=group_verdicts(verdicts),
        group_info=info,
        records_sha256=hashlib.sha256(text.encode()).hexdigest(),
    )


# --- levels and labels ---------------------------------------------------------------------


def level_label(stratum: str, level: str) -> str:
    if stratum == "all":
        return "All turns"
    if stratum == "turn":
        return f"Turn {level}"
    if stratum == "multi_turn":
        return MULTI_TURN_LEVELS[level]
    return label(f"qa_{stratum}", level)


MULTI_TURN_LEVELS = {
    "all_turns": "Every turn of a multi-turn group",
    "final_turn": "Final turn of a multi-turn group",
    "dialogue": "Whole dialogue (every turn correct)",
}


def ordered_levels(stratum: str, present) -> list[str]:
    present = set(present)
    if stratum == "structure":
        return [s for s in Structure.values if s in present]
    if stratum == "modality":
        return [m for m in Modality.values if m in present]
    if stratum == "turn":
        return sorted(present, key=int)
    return sorted(present, key=lambda c: label("qa_category", c).lower())


# --- cells -----------------------------------------------------------------------------------


def _bootstrap(matrix: np.ndarray, clusters: np.ndarray):
    return clustered_bootstrap_rows(
        matrix,
        clusters,
        n_resamples=SETTINGS["n_resamples"],
        seed=SETTINGS["seed"],
        confidence=SETTINGS["confidence"],
    )


def _rate_cells(values: np.ndarray, clusters: np.ndarray, masks: list[np.ndarray]) -> list[dict]:
    """Accuracy of ``values`` (1/0, nan = not judged) inside each mask: count, rate, Wilson and
    clustered bootstrap intervals; null rates below ``min_questions``."""
    if not masks:
        return []
    matrix = np.where(np.array(masks), values[None, :], np.nan)
    boot = _bootstrap(matrix, clusters) if values.size else None
    cells = []
    for s, mask in enumerate(masks):
        judged = mask & np.isfinite(values)
        n = int(judged.sum())
        k = int(values[judged].sum())
        if n < SETTINGS["min_questions"]:
            cells.append({"n": n, "correct": None, "rate": None, "wilson": None,
                          "bootstrap": None, "videos": None, "few": True})  # fmt: skip
            continue
        low, high = wilson_interval(k, n, z=SETTINGS["z"])
        cells.append(
            {
                "n": n,
                "correct": k,
                "rate": k / n,
                "wilson": [_none(low), _none(high)],
                "bootstrap": [_none(boot.low[s]), _none(boot.high[s])],
                "videos": int(boot.clusters[s]),
                "few": False,
            }
        )
    return cells


def _mean_cells(values: np.ndarray, clusters: np.ndarray, masks: list[np.ndarray]) -> list[dict]:
    """Mean of ``values`` (nan = none) inside each mask with its clustered bootstrap interval."""
    if not masks:
        return []
    matrix = np.where(np.array(masks), values[None, :], np.nan)
    boot = _bootstrap(matrix, clusters) if values.size else None
    cells = []
    for s, mask in enumerate(masks):
        n = int((mask & np.isfinite(values)).sum())
        if n < SETTINGS["min_questions"]:
            cells.append({"n": n, "mean": None, "bootstrap": None, "few": True})
            continue
        cells.append(
            {
                "n": n,
                "mean": float(boot.estimate[s]),
                "bootstrap": [_none(boot.low[s]), _none(boot.high[s])],
                "few": False,
            }
        )
    return cells


def _strata(r: RunRecords) -> list[tuple[str, str, np.ndarray]]:
    n = len(r.keys)
    out = [("all", "all", np.ones(n, dtype=bool))]
    for stratum in STRATA:
        values = np.array(r.fields[stratum], dtype=object)
        for level in ordered_levels(stratum, set(r.fields[stratum])):
            out.append((stratum, level, values == level))
    if r.multi.any():
        out.append(("multi_turn", "all_turns", r.multi.copy()))
        out.append(("multi_turn", "final_turn", r.final.copy()))
    return out


def _status_counts(statuses: list[str]) -> dict[str, int]:
    counts = dict.fromkeys(TURN_STATUSES, 0)
    for s in statuses:
        counts[s] += 1
    return counts


def run_cells(r: RunRecords) -> list[dict]:
    strata = _strata(r)
    masks = [m for _, _, m in strata]
    accuracy = _rate_cells(r.correct, r.video, masks)
    scores = _mean_cells(r.score, r.video, masks)
    status = np.array(r.status, dtype=object)
    cells = []
    for (stratum, level, mask), acc, sc in zip(strata, accuracy, scores, strict=True):
        cells.append(
            {
                "stratum": stratum,
                "level": level,
                "label": level_label(stratum, level),
                "turns": int(mask.sum()),
                "statuses": _status_counts(list(status[mask])),
                "accuracy": acc,
                "score": sc,
            }
        )
    dialogue = _dialogue_cell(r)
    if dialogue is not None:
        cells.append(dialogue)
    return cells


def _dialogue_cell(r: RunRecords) -> dict | None:
    """Multi-turn groups as wholes: correct when every turn is (``group_verdicts``)."""
    multi = [g for g, info in r.group_info.items() if info[4] > 1 and g in r.groups]
    if not multi:
        return None
    verdicts = [r.groups[g] for g in multi]
    values = np.array(
        [1.0 if v == CORRECT else 0.0 if v == INCORRECT else np.nan for v in verdicts]
    )
    videos = np.array([r.group_info[g][3] for g in multi], dtype=np.int64)
    (acc,) = _rate_cells(values, videos, [np.ones(len(multi), dtype=bool)])
    counts = {}
    for v in verdicts:
        counts[v] = counts.get(v, 0) + 1
    return {
        "stratum": "multi_turn",
        "level": "dialogue",
        "label": level_label("multi_turn", "dialogue"),
        "turns": None,
        "groups": len(multi),
        "statuses": counts,
        "accuracy": acc,
        "score": None,
    }


# --- runs, tables, pairs -----------------------------------------------------------------------


def run_summary(r: RunRecords) -> dict:
    run = r.run
    group_counts: dict[str, int] = {}
    for v in r.groups.values():
        group_counts[v] = group_counts.get(v, 0) + 1
    judge = r.judge
    return {
        "run": run.name,
        "id": run.pk,
        "model": run.endpoint.model,
        "endpoint": run.endpoint.name,
        "media": run.condition,
        "status": run.status,
        "package": {"name": run.package.name, "sha256": run.package.sha256},
        "set": (run.provenance or {}).get("set"),
        "records_sha256": r.records_sha256,
        "judge": None
        if judge is None
        else {
            "run": judge.name,
            "id": judge.pk,
            "model": judge.endpoint.model,
            "package": {"name": judge.package.name, "sha256": judge.package.sha256},
            "finished_at": judge.finished_at.isoformat() if judge.finished_at else None,
        },
        "groups": len(r.groups),
        "group_verdicts": dict(sorted(group_counts.items())),
        "cells": run_cells(r),
    }


def model_table(runs: list[dict], stratum: str) -> dict:
    """Rows = runs, columns = the stratum's levels (any run's) then all turns: accuracy cells
    (the shapes of the second paper's Tables 2 and 11)."""
    present = {c["level"] for r in runs for c in r["cells"] if c["stratum"] == stratum}
    levels = ordered_levels(stratum, present)
    columns = [{"level": lv, "label": level_label(stratum, lv)} for lv in levels]
    columns.append({"level": "all", "label": level_label("all", "all")})
    rows = []
    for r in runs:
        by = {c["level"]: c for c in r["cells"] if c["stratum"] == stratum}
        by["all"] = next(c for c in r["cells"] if c["stratum"] == "all")
        rows.append(
            {
                "run": r["run"],
                "model": r["model"],
                "cells": [
                    by[c["level"]]["accuracy"] if c["level"] in by else None for c in columns
                ],
            }
        )
    return {"stratum": stratum, "columns": columns, "rows": rows}


def _effect_cells(diff: np.ndarray, a: np.ndarray, b: np.ndarray, clusters, strata) -> list[dict]:
    masks = [m for _, _, m in strata]
    boot = _bootstrap(np.where(np.array(masks), diff[None, :], np.nan), clusters)
    cells = []
    for s, (stratum, level, mask) in enumerate(strata):
        valid = mask & np.isfinite(diff)
        n = int(valid.sum())
        cell = {"stratum": stratum, "level": level, "label": level_label(stratum, level), "n": n}
        if n < SETTINGS["min_questions"]:
            cells.append(cell | {"few": True, "estimate": None, "low": None, "high": None,
                                 "a": None, "b": None, "significant": False})  # fmt: skip
            continue
        low, high = _none(boot.low[s]), _none(boot.high[s])
        cells.append(
            cell
            | {
                "few": False,
                "estimate": float(boot.estimate[s]),
                "low": low,
                "high": high,
                "a": float(a[valid].mean()),
                "b": float(b[valid].mean()),
                "significant": low is not None and (low > 0 or high < 0),
            }
        )
    return cells


def pair_agreement(ca: np.ndarray, cb: np.ndarray) -> dict:
    """How far two runs agree on which turns are right, over the turns judged in both (1/0;
    nan = not judged): the four counts, raw agreement and Fleiss' kappa with the two runs as two
    raters of two categories (``scoring.stats.fleiss_kappa``); no kappa below ``min_questions``
    or when every answer fell in one category."""
    valid = np.isfinite(ca) & np.isfinite(cb)
    a, b = ca[valid].astype(bool), cb[valid].astype(bool)
    n = int(valid.sum())
    out = {
        "n": n,
        "both_correct": int((a & b).sum()),
        "both_incorrect": int((~a & ~b).sum()),
        "only_a_correct": int((a & ~b).sum()),
        "only_b_correct": int((~a & b).sum()),
        "raw": None,
        "kappa": None,
        "few": n < SETTINGS["min_questions"],
    }
    if not out["few"]:
        table = np.stack([a.astype(int) + b.astype(int), (~a).astype(int) + (~b).astype(int)], 1)
        out["raw"] = _none(raw_agreement(table))
        out["kappa"] = _none(fleiss_kappa(table))
    return out


def pair_report(a: RunRecords, b: RunRecords) -> dict:
    """Run A - run B on the turns both have, clustered by A's groups' source videos."""
    where = {key: i for i, key in enumerate(b.keys)}
    ia = np.array([i for i, key in enumerate(a.keys) if key in where], dtype=np.int64)
    ib = np.array([where[a.keys[i]] for i in ia], dtype=np.int64)
    shared = {a.keys[i][0] for i in ia}
    sub = RunRecords(
        run=a.run, judge=a.judge, keys=[a.keys[i] for i in ia],
        status=[a.status[i] for i in ia], correct=a.correct[ia], score=a.score[ia],
        video=a.video[ia], fields={k: [v[i] for i in ia] for k, v in a.fields.items()},
        final=a.final[ia], multi=a.multi[ia], groups={}, group_info={}, records_sha256="",
    )  # fmt: skip
    strata = _strata(sub)
    ca, cb = a.correct[ia], b.correct[ib]
    sa, sb = a.score[ia], b.score[ib]
    accuracy = _effect_cells(ca - cb, ca, cb, sub.video, strata) if ia.size else []
    score = _effect_cells(sa - sb, sa, sb, sub.video, strata) if ia.size else []
    return {
        "a": a.run.name,
        "b": b.run.name,
        "shared_groups": len(shared),
        "shared_turns": int(ia.size),
        "only_a_turns": len(a.keys) - int(ia.size),
        "only_b_turns": len(b.keys) - int(ia.size),
        "accuracy": accuracy,
        "score": score,
        "agreement": pair_agreement(ca, cb),
    }


def qa_report(runs: list[Run], pairs: list[tuple[Run, Run]] = ()) -> dict:
    """The report over ``runs`` (QA runs, in the order given) and paired differences for
    ``pairs`` of them (docs/qa-evaluation.md, "Report")."""
    if not runs:
        raise ReportError("name one or more QA runs")
    if len({r.pk for r in runs}) != len(runs):
        raise ReportError("a run is named twice")
    names = {r.name for r in runs}
    for a, b in pairs:
        if a.name not in names or b.name not in names:
            raise ReportError(f"the pair {a.name} - {b.name} names a run not in the report")
        if a.pk == b.pk:
            raise ReportError(f"the pair {a.name} - {b.name} pairs a run with itself")
    records = {r.pk: run_records(r) for r in runs}
    summaries = [run_summary(records[r.pk]) for r in runs]
    manifests = {}
    for s in summaries:
        if s["set"]:
            manifests[s["set"]["manifest_sha256"]] = s["set"]
    group_sets = [set(records[r.pk].groups) for r in runs]
    return {
        "format": FORMAT,
        "settings": dict(SETTINGS),
        "runs": summaries,
        "manifests": list(manifests.values()),
        "same_manifest": len(manifests) == 1,
        "shared_groups": len(set.intersection(*group_sets)),
        "tables": {s: model_table(summaries, s) for s in ("structure", "category")},
        "pairs": [pair_report(records[a.pk], records[b.pk]) for a, b in pairs],
    }

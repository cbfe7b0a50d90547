"""The study report: condition scores and paired contrasts on the common valid set, with their
exclusions, breakdowns and provenance (docs/reports.md), cached by the hash of its inputs."""

from __future__ import annotations

import csv
import io
import json

from scoring.models import Study
from scoring.reports.cache import cached_report
from scoring.reports.provenance import (
    endpoint_snapshot,
    package_snapshot,
    returned_models,
    runs_fingerprint,
    set_of,
)
from scoring.stats import Contrast, controlled_valid, study_estimates
from scoring.studies.progress import study_progress
from scoring.studies.scores import study_table, window_filter
from scoring.studies.templates import COMPOSITE
from studio.canonical import sample_list_sha256

FORMAT = "intent-studio.study-report/2"
NO_WINDOW_FILTER = (
    "none: no human window-validity audit is stored, so windows are not filtered by it "
    "(steps without a window under a condition are removed)"
)


def _links(study: Study):
    return list(study.study_runs.select_related("run", "endpoint"))


def study_inputs(study: Study, filter_set: dict | None = None) -> dict:
    """Everything the report depends on (no floats: canonical bytes). A boundary audit's
    four-way valid set enters by its campaign and the SHA-256 of its sorted sample ids, so a
    new ruling or adjudication makes a new report."""
    links = _links(study)
    extra = {}
    if filter_set is not None:
        extra["window_filter"] = {
            "campaign": filter_set["campaign"],
            "valid_sha256": sample_list_sha256(filter_set["valid"]),
        }
    return {
        **extra,
        "format": FORMAT,
        "study": {
            "name": study.name,
            "template": study.template,
            "conditions": list(study.conditions),
            "models": [e.name for e in study.models_in_order()],
            "contrasts": study.contrasts,
            "common_set": study.common_set,
            "replicates": study.replicates,
            "bootstrap_seed": study.bootstrap_seed,
            "confidence_percent": 95,
            "prediction_package": study.package.sha256,
            "judge_package": study.judge_package.sha256,
            "judge_endpoint": study.judge_endpoint.name,
            "judge_unit": study.judge_unit,
            "judge_seed": study.judge_seed,
        },
        "set": set_of(study.release, study.manifest),
        "runs": runs_fingerprint([sr.run for sr in links]),
    }


def filter_provenance(filter_set: dict | None, table) -> str | dict:
    """Which set filtered the windows: the boundary audit's four-way valid set with the sizes
    the paper keeps apart (audited, official valid, four-way valid, and four-way valid with
    complete predictions: valid under every condition for every model), or the sentence saying
    no filter was applied."""
    if filter_set is None:
        return NO_WINDOW_FILTER
    complete = int(controlled_valid(table).all(axis=0).sum()) if len(table.items) else 0
    return {
        "set": "four_way_valid",
        "source": "boundary audit",
        "campaign": filter_set["campaign"],
        "campaign_state": filter_set["state"],
        "rule": "a step stays in every condition only when its Early, Official, Outcome "
        "visible and Next visible windows were all resolved valid by the boundary audit",
        **filter_set["sets"],
        "four_way_valid_complete_predictions": complete,
    }


def study_provenance(study: Study, *, window_filter_applied=NO_WINDOW_FILTER) -> dict:
    links = _links(study)
    returned = returned_models(sr.run_id for sr in links)
    models = []
    for endpoint in study.models_in_order():
        runs = [sr for sr in links if sr.endpoint_id == endpoint.pk]
        models.append(
            {
                "name": endpoint.name,
                "endpoint": endpoint_snapshot(endpoint),
                "returned_models": sorted({m for sr in runs for m in returned.get(sr.run_id, [])}),
                "runs": {sr.condition: sr.run.name for sr in runs},
            }
        )
    judges = [sr for sr in links if sr.endpoint_id is None]
    return {
        "set": set_of(study.release, study.manifest),
        "models": models,
        "prediction_package": package_snapshot(study.package),
        "judge": {
            "kind": "reference",
            "endpoint": endpoint_snapshot(study.judge_endpoint),
            "returned_models": sorted({m for sr in judges for m in returned.get(sr.run_id, [])}),
            "package": package_snapshot(study.judge_package),
            "unit": study.judge_unit,
            "seed": study.judge_seed,
            "runs": {sr.condition: sr.run.name for sr in judges},
        },
        "window_filter": window_filter_applied,
    }


def _contrasts(study: Study) -> list[Contrast]:
    return [
        Contrast(c["name"], c["a"], c["b"], tuple(c["dimensions"]) if c.get("dimensions") else None)
        for c in study.contrasts
    ]


def compute_study_report(study: Study, filter_set: dict | None = None) -> dict:
    table = study_table(study, filter_set=filter_set)
    result = study_estimates(
        table,
        contrasts=_contrasts(study),
        composite=COMPOSITE,
        common=study.common_set,
        n_resamples=study.replicates,
        seed=study.bootstrap_seed,
    )
    return {
        "format": FORMAT,
        "study": study.name,
        "template": study.template,
        "rule": "controlled: execution failures removed for every model of their condition "
        "(appendix I.3); invalid answers score 0",
        "conditions_order": list(study.conditions),
        # Conditions whose predictions all ended without one ok item: no judge run, every step
        # an exclusion (counted per reason in "exclusions").
        "nothing_to_judge": [
            c["condition"] for c in study_progress(study)["conditions"] if c["nothing_to_judge"]
        ],
        "models_order": list(table.models),
        "steps": len(table.items),
        "provenance": study_provenance(
            study, window_filter_applied=filter_provenance(filter_set, table)
        ),
        **result,
    }


def study_report(study: Study, *, fresh: bool = False) -> tuple[str, bool]:
    """The report's JSON text and whether it was served from the cache."""
    filter_set = window_filter(study)
    return cached_report(
        kind="study",
        subject=study.name,
        inputs=study_inputs(study, filter_set),
        compute=lambda: compute_study_report(study, filter_set),
        fresh=fresh,
    )


TABLES = ("effects", "conditions", "exclusions")
COLUMNS = {
    "effects": [
        "stratum",
        "level",
        "contrast",
        "a",
        "b",
        "model",
        "dimension",
        "n",
        "videos",
        "scenes",
        "estimate",
        "low",
        "high",
        "significant",
        "scene_macro",
        "scene_macro_low",
        "scene_macro_high",
        "scene_macro_significant",
        "video_macro",
        "video_macro_low",
        "video_macro_high",
        "video_macro_significant",
    ],
    "conditions": [
        "stratum",
        "level",
        "model",
        "condition",
        "dimension",
        "n",
        "micro",
        "low",
        "high",
        "scene_macro",
        "video_macro",
    ],
}


def provenance_lines(report: dict) -> list[str]:
    """The provenance as ``# key: JSON value`` lines heading every CSV table."""
    p = report["provenance"]
    lines = [
        ("format", report["format"]),
        ("study", report["study"]),
        ("set", p["set"]),
        ("models", p["models"]),
        ("prediction_package", p["prediction_package"]),
        ("judge", p["judge"]),
        ("bootstrap", report["bootstrap"]),
        ("common_set", report["common_set"]),
        ("window_filter", p["window_filter"]),
        ("nothing_to_judge", report.get("nothing_to_judge", [])),
        ("inputs_sha256", report["inputs_sha256"]),
        ("computed_at", report["computed_at"]),
    ]
    return [f"# {k}: {json.dumps(v, sort_keys=True, ensure_ascii=False)}" for k, v in lines]


def report_csv(report: dict, table: str = "effects") -> str:
    if table not in TABLES:
        raise ValueError(f"table is one of: {', '.join(TABLES)}")
    out = io.StringIO()
    for line in provenance_lines(report):
        out.write(line + "\n")
    writer = csv.writer(out, lineterminator="\n")
    if table == "exclusions":
        writer.writerow(["condition", "items", "valid", "removed", "model", "reason", "count"])
        for e in report["exclusions"]:
            base = [e["condition"], e["items"], e["valid"], e["removed"]]
            for reason, count in sorted(e["by_reason"].items()):
                writer.writerow([*base, "", reason, count])
            for model, reasons in e["by_model"].items():
                for reason, count in sorted(reasons.items()):
                    writer.writerow([*base, model, reason, count])
        return out.getvalue()
    columns = COLUMNS[table]
    writer.writerow(columns)
    for row in report[table]:
        writer.writerow(["" if row[c] is None else row[c] for c in columns])
    return out.getvalue()

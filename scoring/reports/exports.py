"""A study's records for other tools: every prediction and judgement as JSON Lines (the
``run_export`` formats, docs/models.md), the report, and a ``SHA256SUMS`` file that
``sha256sum -c`` checks."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from scoring.models import Study
from scoring.reports.study import study_report
from scoring.runs.export import run_lines

FILES = ("predictions.jsonl", "judgements.jsonl", "report.json")


def _dump(line: dict) -> str:
    return json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n"


def study_export(study: Study, folder: Path) -> dict[str, str]:
    """Write the study's files into ``folder`` (created; existing files of these names are
    replaced) and return ``{file name: SHA-256}``. Runs are written in the study's order:
    condition, then model; judge runs by condition."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    links = {
        (sr.condition, sr.endpoint_id): sr.run for sr in study.study_runs.select_related("run")
    }
    predictions = [
        links[(c, e.pk)]
        for c in study.conditions
        for e in study.models_in_order()
        if (c, e.pk) in links
    ]
    judges = [links[(c, None)] for c in study.conditions if (c, None) in links]
    sums = {}
    for name, runs in (("predictions.jsonl", predictions), ("judgements.jsonl", judges)):
        digest = hashlib.sha256()
        with open(folder / name, "w", encoding="utf-8", newline="\n") as f:
            for run in runs:
                for line in run_lines(run):
                    text = _dump(line)
                    f.write(text)
                    digest.update(text.encode("utf-8"))
        sums[name] = digest.hexdigest()
    report = (study_report(study)[0] + "\n").encode("utf-8")
    (folder / "report.json").write_bytes(report)
    sums["report.json"] = hashlib.sha256(report).hexdigest()
    (folder / "SHA256SUMS").write_text(
        "".join(f"{sums[n]}  {n}\n" for n in FILES), encoding="utf-8"
    )
    return sums

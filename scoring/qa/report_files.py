"""The QA report as served and downloaded: kept by the hash of its inputs (the runs read and the
QA judge runs that count for them, the pairs, the settings), and as CSV (docs/qa-evaluation.md,
"Report").

CSV: one row per number, columns ``CSV_COLUMNS``. ``section`` is ``cell`` (a run's stratum:
``metric`` ``accuracy`` or ``mean_score``) or ``pair`` (run A - run B, ``run_b`` set; also
``raw_agreement`` and ``kappa`` of the two runs on which turns are right, ``correct`` holding
the turns both got right);
``estimate`` is the rate, mean or difference; ``wilson_*`` only for a run's accuracy;
``bootstrap_*`` the clustered interval; ``note`` is "fewer than 3 questions" where no rate is
given."""

from __future__ import annotations

import csv
import io
import json

from scoring.models import Run, RunKind
from scoring.qa.report import FEW, FORMAT, SETTINGS, ReportError, qa_report
from scoring.qa.verdicts import qa_judge_run
from scoring.reports.cache import cached_report
from scoring.reports.provenance import runs_fingerprint

CSV_COLUMNS = (
    "section", "run", "run_b", "stratum", "level", "label", "metric", "n", "correct",
    "estimate", "wilson_low", "wilson_high", "bootstrap_low", "bootstrap_high", "note",
)  # fmt: skip


def report_subject(
    names: list[str], pairs: list[tuple[str, str]] = ()
) -> tuple[list[Run], list[tuple[Run, Run]]]:
    """The QA runs named (in that order; a run a pair names is added when missing) and the
    pairs as runs; ReportError names what is not a QA run."""
    wanted = list(dict.fromkeys([*names, *(n for pair in pairs for n in pair)]))
    if not wanted:
        raise ReportError("name one or more QA runs")
    found = {r.name: r for r in Run.objects.filter(name__in=wanted).select_related(
        "endpoint", "package", "manifest")}  # fmt: skip
    missing = [n for n in wanted if n not in found]
    if missing:
        raise ReportError(f"no run named {', '.join(missing)}")
    other = [n for n in wanted if found[n].kind != RunKind.QA_PREDICTION]
    if other:
        raise ReportError(f"not a QA run: {', '.join(other)}")
    for a, b in pairs:
        if a == b:
            raise ReportError(f"the pair {a} - {b} pairs a run with itself")
    return [found[n] for n in wanted], [(found[a], found[b]) for a, b in pairs]


def qa_report_cached(
    runs: list[Run], pairs: list[tuple[Run, Run]] = (), *, fresh: bool = False
) -> tuple[str, bool]:
    """The report's JSON text and whether it came from the cache."""
    judges = {r.pk: qa_judge_run(r) for r in runs}
    inputs = {
        "format": FORMAT,
        "settings": {k: str(v) for k, v in SETTINGS.items()},  # canonical bytes hold no float
        "runs": [r.name for r in runs],
        "read": runs_fingerprint([*runs, *(j for j in judges.values() if j is not None)]),
        "judges": {r.name: j.name if j else None for r, j in ((r, judges[r.pk]) for r in runs)},
        "pairs": [[a.name, b.name] for a, b in pairs],
    }
    return cached_report(
        kind="qa_report",
        subject=",".join(r.name for r in runs)[:200],
        inputs=inputs,
        compute=lambda: qa_report(runs, pairs),
        fresh=fresh,
    )


def _num(x):
    return "" if x is None else repr(float(x)) if isinstance(x, float) else str(x)


def report_csv(report: dict) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for run in report["runs"]:
        for cell in run["cells"]:
            base = ["cell", run["run"], "", cell["stratum"], cell["level"], cell["label"]]
            acc = cell["accuracy"]
            wilson = acc["wilson"] or [None, None]
            boot = acc["bootstrap"] or [None, None]
            writer.writerow([*base, "accuracy", acc["n"], _num(acc["correct"]),
                             _num(acc["rate"]), _num(wilson[0]), _num(wilson[1]),
                             _num(boot[0]), _num(boot[1]), FEW if acc["few"] else ""])  # fmt: skip
            score = cell["score"]
            if score is None:
                continue
            boot = score["bootstrap"] or [None, None]
            note = FEW if score["few"] else ""
            writer.writerow([*base, "mean_score", score["n"], "", _num(score["mean"]), "", "",
                             _num(boot[0]), _num(boot[1]), note])  # fmt: skip
    for pair in report["pairs"]:
        for metric, key in (("accuracy", "accuracy"), ("mean_score", "score")):
            for cell in pair[key]:
                writer.writerow([
                    "pair", pair["a"], pair["b"], cell["stratum"], cell["level"], cell["label"],
                    metric, cell["n"], "", _num(cell["estimate"]), "", "", _num(cell["low"]),
                    _num(cell["high"]), FEW if cell["few"] else "",
                ])  # fmt: skip
        agree = pair["agreement"]
        for metric in ("raw_agreement", "kappa"):
            value = agree["raw" if metric == "raw_agreement" else "kappa"]
            writer.writerow(["pair", pair["a"], pair["b"], "all", "all", "All turns", metric,
                             agree["n"], agree["both_correct"], _num(value), "", "", "", "",
                             FEW if agree["few"] else ""])  # fmt: skip
    return out.getvalue()


def report_json(text: str) -> str:
    """The stored report, indented for people."""
    return json.dumps(json.loads(text), ensure_ascii=False, indent=2, sort_keys=True) + "\n"

"""Package-level behaviour of scoring.stats: public API, no Django, paper table 8."""

import subprocess
import sys
from pathlib import Path

import pytest

import scoring.stats as stats

REPO_ROOT = Path(__file__).resolve().parents[2]


PUBLIC_API = {
    "BootstrapBatch",
    "Contrast",
    "PairedEffect",
    "ScoreTable",
    "benchmark_values",
    "clustered_bootstrap_rows",
    "controlled_valid",
    "controlled_values",
    "exclusions",
    "group_means",
    "rank_correlations",
    "study_estimates",
    "clustered_bootstrap",
    "fleiss_kappa",
    "icc_2k",
    "icc_2k_interval",
    "icc_21",
    "judge_agreement",
    "judge_correlation_intervals",
    "krippendorff_alpha",
    "krippendorff_alpha_interval",
    "macro_mean",
    "normalized_entropy",
    "paired_difference",
    "raw_agreement",
    "set_similarity",
    "wilson_interval",
}

# Table 8 of the paper: (valid, N) and the reported Wilson 95 % interval in percent.
TABLE_8 = [
    ("Step coherence", 746, 97.58, 99.28),
    ("Duration limit", 756, 99.49, 100.00),
    ("Pre-outcome boundary", 726, 94.39, 97.21),
    ("Local validity", 740, 96.59, 98.69),
    ("Procedural validity", 733, 95.48, 97.96),
    ("Hierarchical distinction", 730, 95.01, 97.64),
    ("Next Plan validity", 727, 94.55, 97.32),
    ("Overall validity before correction", 724, 94.09, 96.99),
]


def test_public_api_is_exactly_the_documented_names():
    assert set(stats.__all__) == PUBLIC_API
    for name in PUBLIC_API:
        assert getattr(stats, name) is not None


def test_every_public_function_documents_its_behaviour():
    for name in PUBLIC_API:
        doc = getattr(stats, name).__doc__ or ""
        assert len(doc) > 80, name
    for name in PUBLIC_API - {"PairedEffect"}:
        assert "nan" in getattr(stats, name).__doc__, f"{name} must document degenerate input"


def test_stats_package_imports_no_django():
    code = (
        "import sys, scoring.stats; "
        "bad = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.')); "
        "assert not bad, bad"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(("criterion", "valid", "low_pct", "high_pct"), TABLE_8)
def test_wilson_interval_reproduces_paper_table_8(criterion, valid, low_pct, high_pct):
    low, high = stats.wilson_interval(valid, 756)
    assert round(100 * low, 2) == pytest.approx(low_pct, abs=1e-9), criterion
    assert round(100 * high, 2) == pytest.approx(high_pct, abs=1e-9), criterion


def test_wilson_interval_reproduces_table_8_in_one_vectorised_call():
    valid = [row[1] for row in TABLE_8]
    low, high = stats.wilson_interval(valid, 756)
    assert [round(100 * v, 2) for v in low] == [row[2] for row in TABLE_8]
    assert [round(100 * v, 2) for v in high] == [row[3] for row in TABLE_8]

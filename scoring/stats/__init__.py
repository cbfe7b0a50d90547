"""Statistics engine for Intent Studio (pure numpy/scipy; no Django import).

Each function documents its input shapes, the paper equation it implements and its result on
degenerate input; see also ``docs/statistics.md``.
"""

from .agreement import fleiss_kappa, icc_2k, icc_2k_interval, icc_21, raw_agreement
from .alpha import krippendorff_alpha, krippendorff_alpha_interval
from .bootstrap import (
    BootstrapBatch,
    PairedEffect,
    clustered_bootstrap,
    clustered_bootstrap_rows,
    paired_difference,
)
from .estimands import ALL_MODELS as ALL_MODELS
from .estimands import Contrast, group_means, rank_correlations, study_estimates
from .intervals import wilson_interval
from .judge import judge_agreement, judge_correlation_intervals
from .scoretable import (
    Cell as Cell,
)
from .scoretable import (
    ScoreTable,
    benchmark_values,
    controlled_valid,
    controlled_values,
    exclusions,
)
from .summaries import macro_mean, normalized_entropy, set_similarity

# Also importable: ALL_MODELS (the pooled row's name) and Cell (the cell status codes).
__all__ = [
    "BootstrapBatch",
    "Contrast",
    "PairedEffect",
    "ScoreTable",
    "benchmark_values",
    "clustered_bootstrap",
    "clustered_bootstrap_rows",
    "controlled_valid",
    "controlled_values",
    "exclusions",
    "fleiss_kappa",
    "group_means",
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
    "rank_correlations",
    "raw_agreement",
    "set_similarity",
    "study_estimates",
    "wilson_interval",
]

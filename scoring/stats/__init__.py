"""Statistics engine for Intent Studio (pure numpy/scipy; no Django import).

Each function documents its input shapes, the paper equation it implements and its result on
degenerate input; see also ``docs/statistics.md``.
"""

from .agreement import fleiss_kappa, icc_2k, icc_21, raw_agreement
from .alpha import krippendorff_alpha
from .bootstrap import PairedEffect, clustered_bootstrap, paired_difference
from .intervals import wilson_interval
from .judge import judge_agreement
from .summaries import macro_mean, normalized_entropy, set_similarity

__all__ = [
    "PairedEffect",
    "clustered_bootstrap",
    "fleiss_kappa",
    "icc_2k",
    "icc_21",
    "judge_agreement",
    "krippendorff_alpha",
    "macro_mean",
    "normalized_entropy",
    "paired_difference",
    "raw_agreement",
    "set_similarity",
    "wilson_interval",
]

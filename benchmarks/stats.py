"""Time scoring.stats against its reference implementations on the paper's sizes.

Run from the repository root:  .venv/bin/python benchmarks/stats.py

Sizes: audit 756 items x 3 raters; judge validation 300 items x 3 raters (0-100 scores, some
missing for alpha); bootstrap 3,014 items in 32 source-video clusters of unequal size with
10,000 replicates (2,000 for the paired difference). Every figure is the best of several
timed runs (time.perf_counter). "ratio" = reference time / our time. The script also checks
that both sides return the same numbers.
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import krippendorff
import pandas as pd
import pingouin
from scipy import stats as sps
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss
from statsmodels.stats.proportion import proportion_confint

from scoring import stats

SEED = 20260713


def best_time(fn, *, budget: float = 1.0, max_repeat: int = 7) -> float:
    """Best per-call time in seconds over up to ``max_repeat`` timed batches."""
    start = time.perf_counter()
    fn()
    once = time.perf_counter() - start
    if once > budget:
        return once
    number = max(1, int(0.02 / max(once, 1e-9)))
    repeat = max(1, min(max_repeat, int(budget / max(once * number, 1e-9))))
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return min(best, once)


def fmt(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:8.3f} s "
    if seconds >= 1e-3:
        return f"{seconds * 1e3:8.3f} ms"
    return f"{seconds * 1e6:8.1f} us"


ROWS: list[tuple] = []


def bench(name, size, ours, ref, ref_name, *, goal=None, check=None, ref_budget=1.0):
    ours_out, ref_out = ours(), ref()
    if check is not None:
        check(ours_out, ref_out)
    t_ours = best_time(ours)
    t_ref = best_time(ref, budget=ref_budget)
    ratio = t_ref / t_ours
    verdict = ""
    if goal is not None:
        kind, target = goal
        met = t_ours <= target if kind == "max_time" else ratio >= target
        label = f"<= {fmt(target).strip()}" if kind == "max_time" else f">= {target:g}x"
        verdict = f"goal {label}: {'met' if met else 'MISSED'}"
    ROWS.append((name, size, t_ours, t_ref, ratio, ref_name, verdict))
    print(
        f"{name:<28} {size:<32} ours {fmt(t_ours)}   ref {fmt(t_ref)}   "
        f"ratio {ratio:9.1f}x   [{ref_name}] {verdict}",
        flush=True,
    )


def same(tol=1e-9):
    def check(a, b):
        a = np.atleast_1d(np.asarray(a, dtype=float))
        b = np.atleast_1d(np.asarray(b, dtype=float))
        both_nan = np.isnan(a) & np.isnan(b)
        assert np.all(both_nan | (np.abs(a - b) <= tol)), (a, b)

    return check


# --- data -----------------------------------------------------------------------------------


def audit_table(rng):
    """756 items x 3 raters, binary validity with ~96% valid."""
    truth = rng.random(756) < 0.96
    flips = rng.random((756, 3)) < 0.03
    labels = truth[:, None] ^ flips
    valid = labels.sum(axis=1)
    return np.column_stack([valid, 3 - valid])


def judge_ratings(rng, *, integer: bool):
    """300 items x 3 raters, 0-100 scores with an item effect."""
    item = rng.uniform(0, 100, size=(300, 1))
    scores = np.clip(item + rng.normal(0, 12, size=(300, 3)) + [[0, 3, -2]], 0, 100)
    return np.round(scores) if integer else scores


def with_missing(rng, ratings, share=0.05):
    data = ratings.T.copy()  # raters x units
    data[rng.random(data.shape) < share] = np.nan
    return data


def clustered_sample(rng):
    """3,014 items in 32 clusters of unequal size."""
    sizes = 1 + rng.multinomial(3014 - 32, rng.dirichlet(np.full(32, 1.5)))
    clusters = np.repeat([f"video-{i:02d}" for i in range(32)], sizes)
    values = np.clip(rng.normal(50, 25, size=3014) + rng.normal(0, 10, 32).repeat(sizes), 0, 100)
    return values, clusters


# --- references -----------------------------------------------------------------------------


def loop_raw_agreement(table):
    rows = table.tolist()
    r = sum(rows[0])
    return sum(sum(c * (c - 1) for c in row) / (r * (r - 1)) for row in rows) / len(rows)


def pingouin_icc(ratings):
    n, k = ratings.shape
    frame = pd.DataFrame(
        {
            "item": np.repeat(np.arange(n), k),
            "rater": np.tile(np.arange(k), n),
            "score": ratings.ravel(),
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = pingouin.intraclass_corr(frame, targets="item", raters="rater", ratings="score")
    return dict(zip(table["Type"], table["ICC"], strict=True))


def icc_value(table, *names):
    for name in names:
        if name in table:
            return float(table[name])
    raise KeyError(names)


def loop_bootstrap(values, clusters, n_resamples, seed, confidence=0.95):
    """Plain loop over the documented draws, using per-cluster sums and sizes."""
    keep = [(v, c) for v, c in zip(values.tolist(), clusters.tolist(), strict=True)]
    labels = sorted({c for _, c in keep})
    sums = dict.fromkeys(labels, 0.0)
    sizes = dict.fromkeys(labels, 0)
    for v, c in keep:
        sums[c] += v
        sizes[c] += 1
    draws = np.random.default_rng(seed).integers(0, len(labels), size=(n_resamples, len(labels)))
    reps = []
    for row in draws.tolist():
        s = n = 0
        for j in row:
            s += sums[labels[j]]
            n += sizes[labels[j]]
        reps.append(s / n)
    reps.sort()

    def pct(q):
        h = (len(reps) - 1) * q
        lo = math.floor(h)
        hi = min(lo + 1, len(reps) - 1)
        return reps[lo] + (h - lo) * (reps[hi] - reps[lo])

    tail = (1 - confidence) / 2
    return sum(v for v, _ in keep) / len(keep), pct(tail), pct(1 - tail)


def loop_paired(a, b, clusters, n_resamples, seed):
    keep = [
        (x - y, c)
        for x, y, c in zip(a.tolist(), b.tolist(), clusters.tolist(), strict=True)
        if math.isfinite(x) and math.isfinite(y)
    ]
    diffs = np.array([d for d, _ in keep])
    labels = np.array([c for _, c in keep])
    est, low, high = loop_bootstrap(diffs, labels, n_resamples, seed)
    return est, low, high, len(keep), float(low > 0 or high < 0)


def scipy_judge(j, h):
    err = j - h
    return [
        sps.pearsonr(j, h)[0],
        sps.spearmanr(j, h)[0],
        sps.kendalltau(j, h, variant="b")[0],
        np.abs(err).mean(),
        err.mean(),
        (np.abs(err) >= 25).mean(),
    ]


def loop_macro(values, groups):
    by = {}
    for v, g in zip(values.tolist(), groups.tolist(), strict=True):
        by.setdefault(g, []).append(v)
    means = [sum(vs) / len(vs) for vs in by.values()]
    return sum(means) / len(means)


def loop_set_similarity(sim):
    rows = sim.tolist()
    cols = [list(c) for c in zip(*rows, strict=True)]
    return 0.5 * (sum(map(max, rows)) / len(rows) + sum(map(max, cols)) / len(cols))


# --- run ------------------------------------------------------------------------------------


def main() -> None:
    rng = np.random.default_rng(SEED)
    print(f"numpy {np.__version__}; best-of-N with time.perf_counter; ratio = ref / ours\n")

    bench(
        "wilson_interval",
        "724/756",
        lambda: stats.wilson_interval(724, 756),
        lambda: proportion_confint(724, 756, alpha=2 * sps.norm.sf(1.96), method="wilson"),
        "statsmodels proportion_confint",
        check=same(),
    )

    table = audit_table(rng)
    bench(
        "fleiss_kappa",
        "756 x 3 raters",
        lambda: stats.fleiss_kappa(table),
        lambda: sm_fleiss(table, method="fleiss"),
        "statsmodels fleiss_kappa",
        check=same(),
    )
    bench(
        "raw_agreement",
        "756 x 3 raters",
        lambda: stats.raw_agreement(table),
        lambda: loop_raw_agreement(table),
        "plain Python loop",
        check=same(),
    )

    ratings = judge_ratings(rng, integer=False)
    icc_ref = pingouin_icc(ratings)
    bench(
        "icc_21",
        "300 x 3 raters",
        lambda: stats.icc_21(ratings),
        lambda: pingouin_icc(ratings),
        "pingouin intraclass_corr",
        goal=("ratio", 20),
        check=lambda ours, _: same()(ours, icc_value(icc_ref, "ICC2", "ICC(A,1)")),
    )
    bench(
        "icc_2k",
        "300 x 3 raters",
        lambda: stats.icc_2k(ratings),
        lambda: pingouin_icc(ratings),
        "pingouin intraclass_corr",
        goal=("ratio", 20),
        check=lambda ours, _: same()(ours, icc_value(icc_ref, "ICC2k", "ICC(A,k)")),
    )

    continuous = with_missing(rng, ratings)
    bench(
        "krippendorff_alpha interval",
        "3 x 300, continuous",
        lambda: stats.krippendorff_alpha(continuous, "interval"),
        lambda: krippendorff.alpha(continuous, level_of_measurement="interval"),
        "krippendorff.alpha",
        goal=("ratio", 100),
        check=same(),
        ref_budget=3.0,
    )
    integer = with_missing(rng, judge_ratings(rng, integer=True))
    for level in ("nominal", "ordinal", "interval", "ratio"):
        bench(
            f"krippendorff_alpha {level}",
            "3 x 300, integer 0-100",
            lambda level=level: stats.krippendorff_alpha(integer, level),
            lambda level=level: krippendorff.alpha(integer, level_of_measurement=level),
            "krippendorff.alpha",
            check=same(),
        )

    judge = np.clip(ratings.mean(axis=1) + rng.normal(0, 12, 300), 0, 100).round()
    human = ratings.mean(axis=1)
    bench(
        "judge_agreement",
        "300 pairs",
        lambda: list(stats.judge_agreement(judge, human).values()),
        lambda: scipy_judge(judge, human),
        "scipy.stats + numpy",
        check=same(),
    )

    values, clusters = clustered_sample(rng)
    bench(
        "clustered_bootstrap",
        "3014 items/32 clusters, B=10000",
        lambda: stats.clustered_bootstrap(values, clusters, n_resamples=10_000, seed=SEED),
        lambda: loop_bootstrap(values, clusters, 10_000, SEED),
        "plain loop, same draws",
        goal=("max_time", 0.010),
        check=same(),
    )
    other = np.clip(values + rng.normal(-3, 8, values.size), 0, 100)
    other[rng.random(values.size) < 0.01] = np.nan
    bench(
        "paired_difference",
        "3014 items/32 clusters, B=2000",
        lambda: tuple(stats.paired_difference(values, other, clusters, seed=SEED)),
        lambda: loop_paired(values, other, clusters, 2000, SEED),
        "plain loop, same draws",
        check=same(),
    )

    scenes = np.array([f"scene-{i % 15}" for i in rng.integers(0, 1000, values.size)])
    bench(
        "macro_mean",
        "3014 items/15 scenes",
        lambda: stats.macro_mean(values, scenes),
        lambda: loop_macro(values, scenes),
        "plain Python loop",
        check=same(),
    )
    counts = np.array([4, 2, 1])
    bench(
        "normalized_entropy",
        "3 answer clusters",
        lambda: stats.normalized_entropy(counts),
        lambda: sps.entropy(counts) / math.log(3),
        "scipy.stats.entropy",
        check=same(),
    )
    sim = rng.uniform(0, 1, size=(3, 3))
    bench(
        "set_similarity",
        "3 x 3 answers",
        lambda: stats.set_similarity(sim),
        lambda: loop_set_similarity(sim),
        "plain Python loop",
        check=same(),
    )

    missed = [row[0] for row in ROWS if "MISSED" in row[6]]
    print("\nall goals met" if not missed else f"\ngoals MISSED: {', '.join(missed)}")


if __name__ == "__main__":
    main()

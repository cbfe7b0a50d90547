"""Study estimands (appendix I): micro, scene- and video-macro means (eqs. 42-44), paired effects
on the common valid set (eq. 45) with source-video clustered intervals (appendix I.2).

Everything is computed from a :class:`~scoring.stats.scoretable.ScoreTable` under the
controlled-study rule (execution failures removed symmetrically, appendix I.3):

- a per-item **composite** (Overall = mean of Local, Procedural, Next, eq. 27/31) is formed per
  item before any averaging, and only where every part is present;
- **all models** is the per-item mean over the models (the paper's "average of four models"):
  the valid sets are the same for every model, so it is defined on the same items;
- a **contrast** ``A - B`` is the per-item difference ``S_i(A) - S_i(B)`` on the common valid
  set of A and B (``common="pair"``) or of every condition of the study (``common="study"``),
  averaged afterwards (eq. 45), never a difference of two means; a **gain test** (table 2B) is
  the per-item difference of two dimensions' effects, ``(A - B)[x] - (A - B)[y]``;
- every effect gets its micro, scene-macro and video-macro estimates, each with the percentile
  interval of :func:`~scoring.stats.bootstrap.clustered_bootstrap` for that statistic (same draw
  rule and seed, so the three share their replicates' draws) and its significance, the
  effective N and the numbers of source videos and scenes.

Breakdowns (scene, and every stratum of the table such as a duration bin or a tag) repeat the
same computation on the items of each level.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import confidence_level, positive_int
from ._groups import row_group_sums
from .bootstrap import clustered_bootstrap_rows
from .scoretable import ScoreTable, controlled_valid, controlled_values, exclusions

ALL_MODELS = "all models"
ALL = "all"
#: The three means of every effect (eqs. 42-44) and the prefix of their keys in an effect row.
STATISTICS = ("micro", "scene_macro", "video_macro")
PREFIXES = ("", "scene_macro_", "video_macro_")


@dataclass(frozen=True)
class Contrast:
    """``a - b`` per item (eq. 45); with ``dimensions=(x, y)`` the gain test of table 2B,
    ``(a - b)[x] - (a - b)[y]``. An item missing (``nan``) under either condition is outside the
    contrast's common set."""

    name: str
    a: str
    b: str
    dimensions: tuple[str, str] | None = None

    def label(self, dimension: str | None = None) -> str:
        if self.dimensions:
            return f"{self.dimensions[0]}-{self.dimensions[1]}"
        return dimension or ""


def group_means(values, scenes, videos) -> dict[str, np.ndarray]:
    """Micro (eq. 42), scene-macro (eq. 43) and video-macro (eq. 44) means of every row.

    ``values`` is (S, N) with ``nan`` = not in the row's set; ``scenes`` and ``videos`` are the
    items' labels. A group with no valid item in a row does not count in that row's C or V.
    Returns arrays of length S: ``micro``, ``scene_macro``, ``video_macro``, ``n`` and the
    number of groups with a valid item, ``scenes`` and ``videos``."""
    v = np.asarray(values, dtype=np.float64)
    valid = np.isfinite(v)
    v0 = np.where(valid, v, 0.0)
    n = valid.sum(axis=1)
    out = {"n": n}
    out["micro"] = np.where(n > 0, v0.sum(axis=1) / np.maximum(n, 1), np.nan)
    for name, labels in (("scene_macro", scenes), ("video_macro", videos)):
        sums, sizes = row_group_sums(v0, valid, labels)
        present = sizes > 0
        means = np.divide(sums, sizes, out=np.zeros_like(sums), where=present)
        groups = present.sum(axis=1)
        out[name.split("_")[0] + "s"] = groups
        out[name] = np.where(groups > 0, means.sum(axis=1) / np.maximum(groups, 1), np.nan)
    return out


def _with_composite(table: ScoreTable, values: np.ndarray, composite) -> tuple[tuple, np.ndarray]:
    dims = table.dimensions
    if composite is None:
        return dims, values
    name, parts = composite
    index = [dims.index(p) for p in parts]
    comp = values[..., index].mean(axis=-1)  # nan when a part is nan
    return (*dims, name), np.concatenate([values, comp[..., None]], axis=-1)


def _levels(table: ScoreTable, strata) -> list[tuple[str, str, np.ndarray]]:
    """(stratum, level, item mask) for the whole set and every level of every stratum."""
    out = [(ALL, ALL, np.ones(len(table.items), dtype=bool))]
    named = {"scene": table.scenes, **table.strata}
    for name in strata if strata is not None else named:
        labels = np.asarray(named[name], dtype=object)
        present = [x for x in labels.tolist() if x not in (None, "")]
        for level in sorted(set(present), key=str):
            out.append((name, str(level), labels == level))
    return out


def _clean(x) -> float | None:
    x = float(x)
    return None if np.isnan(x) else x


def _interval(batch, point, r: int, prefix: str) -> dict:
    """One variant's estimate, interval and significance (keys ``estimate``/``low``/``high``/
    ``significant`` for the micro mean, ``scene_macro``/``scene_macro_low``/... otherwise)."""
    low, high = _clean(batch.low[r]), _clean(batch.high[r])
    key = prefix.rstrip("_") or "estimate"
    return {
        key: _clean(point),
        f"{prefix}low": low,
        f"{prefix}high": high,
        f"{prefix}significant": bool(
            low is not None and high is not None and (low > 0 or high < 0)
        ),
    }


def study_estimates(
    table: ScoreTable,
    *,
    contrasts: list[Contrast],
    composite: tuple[str, tuple[str, ...]] | None = None,
    common: str = "pair",
    strata: list[str] | None = None,
    n_resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict:
    """Condition scores and paired effects of a controlled study, as JSON-ready rows.

    ``common`` is ``"pair"`` (each contrast on the common valid set of its two conditions, each
    condition's scores on its own valid set) or ``"study"`` (everything on the items valid under
    every condition, as the boundary study's 508). ``strata`` names the breakdowns (default:
    ``scene`` and every stratum of the table). Returns ``{"exclusions", "conditions",
    "effects", "bootstrap", "common_set", "dimensions"}``; numbers that cannot be formed (no item
    in the set: ``nan`` inside, one source video: no interval) are ``None``. Raises
    ``ValueError`` for an unknown condition or dimension in a contrast or a bad ``common``."""
    if common not in ("pair", "study"):
        raise ValueError(f"common must be 'pair' or 'study', got {common!r}")
    n_resamples = positive_int(n_resamples, "n_resamples")
    confidence = confidence_level(confidence)
    for k in contrasts:
        for cond in (k.a, k.b):
            if cond not in table.conditions:
                raise ValueError(f"contrast {k.name}: unknown condition {cond!r}")
    dims, values = _with_composite(table, controlled_values(table), composite)
    for k in contrasts:
        for d in k.dimensions or ():
            if d not in dims:
                raise ValueError(f"contrast {k.name}: unknown dimension {d!r}")
    pooled = values.mean(axis=0, keepdims=True)  # same valid items for every model
    values = np.concatenate([values, pooled], axis=0)
    models = (*table.models, ALL_MODELS)
    valid = controlled_valid(table)
    everywhere = valid.all(axis=0)

    def cond_mask(ci):
        return everywhere if common == "study" else valid[ci]

    levels = _levels(table, strata)
    cond_rows, cond_keys = [], []
    for ci, condition in enumerate(table.conditions):
        mask = cond_mask(ci)
        for mi, model in enumerate(models):
            for di, dim in enumerate(dims):
                cond_rows.append(np.where(mask, values[mi, ci, :, di], np.nan))
                cond_keys.append((model, condition, dim))
    eff_rows, eff_keys = [], []
    for k in contrasts:
        a, b = table.conditions.index(k.a), table.conditions.index(k.b)
        mask = everywhere if common == "study" else valid[a] & valid[b]
        diff = values[:, a] - values[:, b]  # (M+1, N, D)
        for mi, model in enumerate(models):
            if k.dimensions:
                x, y = (dims.index(d) for d in k.dimensions)
                eff_rows.append(np.where(mask, diff[mi, :, x] - diff[mi, :, y], np.nan))
                eff_keys.append((k, model, k.label()))
            else:
                for di, dim in enumerate(dims):
                    eff_rows.append(np.where(mask, diff[mi, :, di], np.nan))
                    eff_keys.append((k, model, dim))
    cond_matrix = np.array(cond_rows).reshape(len(cond_rows), -1)
    eff_matrix = np.array(eff_rows).reshape(len(eff_rows), -1)
    conditions, effects = [], []
    cm = np.concatenate([np.where(m, cond_matrix, np.nan) for _, _, m in levels])
    em = np.concatenate([np.where(m, eff_matrix, np.nan) for _, _, m in levels])
    cmeans = group_means(cm, table.scenes, table.videos)
    emeans = group_means(em, table.scenes, table.videos)
    boot = {
        statistic: clustered_bootstrap_rows(
            em,
            table.videos,
            n_resamples=n_resamples,
            seed=seed,
            confidence=confidence,
            statistic=statistic,
            scenes=table.scenes,
        )
        for statistic in STATISTICS
    }
    # The whole set's condition means get their own interval (micro), for the condition
    # profile's interval bars; levels of the breakdowns do not.
    cond_boot = clustered_bootstrap_rows(
        cm[: len(cond_keys)],
        table.videos,
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
        statistic="micro",
    )
    for li, (stratum, level, _) in enumerate(levels):
        for j, (model, condition, dim) in enumerate(cond_keys):
            r = li * len(cond_keys) + j
            conditions.append(
                {
                    "stratum": stratum,
                    "level": level,
                    "model": model,
                    "condition": condition,
                    "dimension": dim,
                    "n": int(cmeans["n"][r]),
                    "micro": _clean(cmeans["micro"][r]),
                    "low": _clean(cond_boot.low[r]) if li == 0 else None,
                    "high": _clean(cond_boot.high[r]) if li == 0 else None,
                    "scene_macro": _clean(cmeans["scene_macro"][r]),
                    "video_macro": _clean(cmeans["video_macro"][r]),
                }
            )
        for j, (k, model, dim) in enumerate(eff_keys):
            r = li * len(eff_keys) + j
            row = {
                "stratum": stratum,
                "level": level,
                "contrast": k.name,
                "a": k.a,
                "b": k.b,
                "model": model,
                "dimension": dim,
                "n": int(boot["micro"].n[r]),
                "videos": int(boot["micro"].clusters[r]),
                "scenes": int(emeans["scenes"][r]),
            }
            for statistic, prefix in zip(STATISTICS, PREFIXES, strict=True):
                row.update(_interval(boot[statistic], emeans[statistic][r], r, prefix))
            effects.append(row)
    return {
        "common_set": common,
        "dimensions": list(dims),
        "bootstrap": {
            "replicates": n_resamples,
            "seed": seed,
            "confidence": confidence,
            "cluster": "source video",
            "method": "percentile",
        },
        "exclusions": exclusions(table),
        "conditions": conditions,
        "effects": effects,
    }


def benchmark_means(values, scenes, videos) -> dict[str, np.ndarray]:
    """Full-benchmark means of every row of ``values`` (S, N) where missing already counts 0
    (:func:`~scoring.stats.scoretable.benchmark_values`): micro, scene- and video-macro."""
    return group_means(values, scenes, videos)


def rank_correlations(x, y) -> tuple[float | None, float | None]:
    """Pearson and Spearman correlation of two model-level series (appendix C.4: Overall against
    the diagnostic average). ``None`` (never ``nan``) for fewer than three pairs or no
    variation in either series; ``ValueError`` when the two are not 1-D of one length."""
    from scipy import stats

    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("x and y must be 1-D of the same length")
    if a.size < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return None, None
    return _clean(stats.pearsonr(a, b)[0]), _clean(stats.spearmanr(a, b)[0])

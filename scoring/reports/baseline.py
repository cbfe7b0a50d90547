"""The human-baseline report (paper appendix D, eqs. 9-26), pure: inputs in, one JSON-ready
document out. The inputs are read from the database by ``baseline_inputs.py``; the statistics
come from ``scoring.stats``; the similarity from ``scoring.similarity``. docs/baseline.md has
every equation as implemented here. Rates are fractions 0-1, scores 0-100, nothing rounded; an
undefined figure is ``None``; every figure carries its N.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from scoring.stats import (
    clustered_bootstrap_rows,
    fleiss_kappa,
    normalized_entropy,
    paired_difference,
    raw_agreement,
)

DIMENSIONS = ("local", "procedural", "next")
REPLICATES = 10_000


@dataclass(frozen=True)
class Item:
    uid: str
    video: str  # the bootstrap cluster (source video)
    scene: str
    bin: int


@dataclass(frozen=True)
class Answer:
    answerable: bool
    answers: tuple[str, ...]
    confidence: int


@dataclass(frozen=True)
class Response:
    rater: str
    uid: str
    broken: bool = False
    dims: dict = field(default_factory=dict)  # dimension -> Answer
    seconds: float | None = None


def _num(x) -> float | None:
    x = float(x)
    return x if np.isfinite(x) else None


def _mean(values) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None


def human_value(response: Response, dim: str, scores: dict | None) -> float | None:
    """y_ird = a_ird z_ird (eq. 9): 0 for an unanswerable dimension (no judge call needed),
    else the judge's score (None while it is not judged)."""
    if not response.dims[dim].answerable:
        return 0.0
    if scores is None:
        return None
    return scores.get(dim)


def _overall(values: dict) -> float | None:
    if any(values.get(d) is None for d in DIMENSIONS):
        return None
    return sum(values[d] for d in DIMENSIONS) / 3


def compute(
    *,
    items: list[Item],
    responses: list[Response],
    human_scores: dict | None,
    models: dict[str, dict[str, dict]],
    similarity,
    bin_labels: list[str],
    seed: int,
    replicates: int = REPLICATES,
) -> dict:
    """The report's figures.

    ``human_scores``: ``{(rater, uid): {dim: z}}`` from the judge (``None``: not judged yet;
    a response missing from it counts as not judged). ``models``: ``{model: {uid: {dim: m}}}``
    (a uid missing from a model is a step it has no score for). ``similarity``: a
    ``scoring.similarity.Similarity``."""
    by_uid = {i.uid: i for i in items}
    broken = [r for r in responses if r.broken]
    counted = [r for r in responses if not r.broken and r.uid in by_uid]
    per_item: dict[str, list[Response]] = defaultdict(list)
    for r in counted:
        per_item[r.uid].append(r)
    scored_items = [i for i in items if per_item.get(i.uid)]
    uids = [i.uid for i in scored_items]
    judged = human_scores is not None

    def y(r: Response, d: str):
        return human_value(r, d, (human_scores or {}).get((r.rater, r.uid)) if judged else None)

    # --- human scores (eqs. 9-10, 12) -------------------------------------------------------
    human = {}
    missing_judgements = sum(
        1
        for r in counted
        if judged
        and any(r.dims[d].answerable for d in DIMENSIONS)
        and (r.rater, r.uid) not in human_scores
    )
    for d in DIMENSIONS:
        values = [y(r, d) for r in counted]
        known = [v for v in values if v is not None]
        human[d] = {
            "score": _mean(known) if judged and len(known) == len(values) else None,
            "n": len(values),
        }
    human["overall"] = {
        "score": _overall({d: human[d]["score"] for d in DIMENSIONS}),
        "n": len(counted),
    }

    # per item: mean over its raters of y (the paired bootstrap's human side)
    def item_human(uid: str, d: str):
        values = [y(r, d) for r in per_item[uid]]
        return None if any(v is None for v in values) else sum(values) / len(values)

    h_item = {
        d: np.array([np.nan if (v := item_human(u, d)) is None else v for u in uids])
        for d in DIMENSIONS
    }
    h_item["overall"] = (h_item["local"] + h_item["procedural"] + h_item["next"]) / 3
    clusters = np.array([by_uid[u].video for u in uids], dtype=object)
    rows = np.vstack([h_item[k] for k in (*DIMENSIONS, "overall")]) if uids else np.zeros((4, 0))
    boot = clustered_bootstrap_rows(rows, clusters, n_resamples=replicates, seed=seed)
    for n, k in enumerate((*DIMENSIONS, "overall")):
        human[k]["ci95"] = [_num(boot.low[n]), _num(boot.high[n])] if uids else [None, None]

    # --- answerability (eqs. 14-18) ---------------------------------------------------------
    answerability = {}
    majority: dict[str, dict[str, bool]] = {}
    for d in DIMENSIONS:
        flags = [r.dims[d].answerable for r in counted]
        majority[d] = {
            u: sum(r.dims[d].answerable for r in per_item[u]) * 2 > len(per_item[u]) for u in uids
        }
        full = [u for u in uids if len(per_item[u]) >= 2]
        sizes = Counter(len(per_item[u]) for u in full)
        r_common = sizes.most_common(1)[0][0] if sizes else 0
        rated = [u for u in full if len(per_item[u]) == r_common]
        table = np.array(
            [
                [
                    sum(r.dims[d].answerable for r in per_item[u]),
                    sum(not r.dims[d].answerable for r in per_item[u]),
                ]
                for u in rated
            ],
            dtype=float,
        ).reshape(len(rated), 2)
        answerability[d] = {
            "answerable_rate": _mean(flags),
            "n": len(flags),
            "majority_answerable_items": sum(majority[d].values()),
            "items": len(uids),
            "fleiss_kappa": _num(fleiss_kappa(table)) if rated else None,
            "raw_agreement": _num(raw_agreement(table)) if rated else None,
            "kappa_items": len(rated),
            "kappa_raters": r_common,
            "mean_confidence": _mean(r.dims[d].confidence for r in counted),
        }

    # majority-answerable human scores (eq. 16)
    for d in DIMENSIONS:
        chosen = [u for u in uids if majority[d][u]]
        values = [y(r, d) for u in chosen for r in per_item[u]]
        ok = judged and all(v is not None for v in values)
        answerability[d]["human_majority"] = _mean(values) if ok else None
        answerability[d]["human_majority_n"] = len(values)

    # --- semantic agreement (eqs. 19-20) ----------------------------------------------------
    agreement = {}
    for d in DIMENSIONS:
        sims = []
        for u in uids:
            group = sorted(per_item[u], key=lambda r: r.rater)
            for a in range(len(group)):
                for b in range(a + 1, len(group)):
                    x, z = group[a].dims[d], group[b].dims[d]
                    if not (x.answerable and z.answerable):
                        continue
                    if d == "next":
                        sims.append(similarity.set_pair(list(x.answers), list(z.answers)))
                    else:
                        sims.append(similarity.pair(x.answers[0], z.answers[0]))
        agreement[d] = {"semantic_agreement": _mean(sims), "pairs": len(sims)}

    # --- Next ambiguity (eqs. 22-26) --------------------------------------------------------
    single = multiple = 0
    n_clusters, entropies, top3, listed = [], [], [], []
    for u in uids:
        if not majority["next"][u]:
            continue
        texts = [
            t
            for r in sorted(per_item[u], key=lambda r: r.rater)
            if r.dims["next"].answerable
            for t in r.dims["next"].answers
        ]
        labels = similarity.clusters(texts)
        counts = sorted(Counter(labels).values(), reverse=True)
        groups = defaultdict(list)
        for text, label in zip(texts, labels, strict=True):
            groups[label].append(text)
        listed.append(
            {"step": u, "clusters": sorted(groups.values(), key=lambda g: (-len(g), g[0]))}
        )
        k = len(counts)
        single += k == 1
        multiple += k >= 2
        n_clusters.append(k)
        entropies.append(normalized_entropy(counts))
        top3.append(sum(counts[:3]) / sum(counts))
    n_items = len(uids)
    ambiguity = {
        "n": n_items,
        "single_rate": single / n_items if n_items else None,
        "multiple_rate": multiple / n_items if n_items else None,
        "unanswerable_rate": (n_items - single - multiple) / n_items if n_items else None,
        "answerable_items": len(n_clusters),
        "mean_clusters": _mean(n_clusters),
        "mean_normalized_entropy": _mean(entropies),
        "top3_cluster_share": _mean(top3),
        "clusters": listed,
    }

    # --- models on the identical steps (eqs. 11-13, 16) -------------------------------------
    model_rows = []
    for name in sorted(models):
        scores = models[name]
        covered = [u for u in uids if u in scores]
        row = {
            "model": name,
            "steps": len(covered),
            "missing_steps": len(uids) - len(covered),
            "missing": sorted(set(uids) - set(covered)),
        }
        for d in DIMENSIONS:
            row[d] = _mean(scores[u][d] for u in covered)
            chosen = [u for u in covered if majority[d][u]]
            row[f"{d}_majority"] = _mean(scores[u][d] for u in chosen)
            row[f"{d}_majority_n"] = len(chosen)
        row["overall"] = _overall(row) if covered else None
        row["overall_minus_human"] = (
            row["overall"] - human["overall"]["score"]
            if row["overall"] is not None and human["overall"]["score"] is not None
            else None
        )
        gaps = {}
        for d in (*DIMENSIONS, "overall"):
            m = np.array(
                [
                    (sum(scores[u][x] for x in DIMENSIONS) / 3 if d == "overall" else scores[u][d])
                    if u in scores
                    else np.nan
                    for u in uids
                ]
            )
            effect = paired_difference(
                m, h_item[d], clusters, n_resamples=replicates, seed=seed
            ) if uids else None  # fmt: skip
            gaps[d] = (
                {
                    "gap": _num(effect.estimate),
                    "ci95": [_num(effect.low), _num(effect.high)],
                    "n": effect.n,
                    "significant": effect.significant,
                }
                if effect is not None
                else {"gap": None, "ci95": [None, None], "n": 0, "significant": False}
            )
        row["gap"] = gaps
        model_rows.append(row)
    ranked = [r for r in model_rows if r["overall"] is not None]
    best = max(ranked, key=lambda r: (r["overall"], r["model"]), default=None)

    # --- strata (tables 29-31) --------------------------------------------------------------
    def human_block(rs: list[Response]) -> dict:
        out = {"n": len(rs)}
        for d in DIMENSIONS:
            values = [y(r, d) for r in rs]
            out[d] = _mean(values) if judged and all(v is not None for v in values) else None
            out[f"{d}_answerable"] = _mean(r.dims[d].answerable for r in rs)
        out["overall"] = _overall(out)
        return out

    def best_on(item_uids: list[str]) -> float | None:
        if best is None:
            return None
        scores = models[best["model"]]
        covered = [u for u in item_uids if u in scores]
        if not covered:
            return None
        return _mean(sum(scores[u][d] for d in DIMENSIONS) / 3 for u in covered)

    raters = []
    for name in sorted({r.rater for r in responses}):
        rs = [r for r in counted if r.rater == name]
        block = human_block(rs)
        block.update(
            {
                "rater": name,
                "broken": sum(1 for r in broken if r.rater == name),
                "mean_confidence": _mean(r.dims[d].confidence for r in rs for d in DIMENSIONS),
                "answerable_rate": _mean(r.dims[d].answerable for r in rs for d in DIMENSIONS),
                "mean_seconds": _mean(r.seconds for r in rs if r.seconds is not None),
            }
        )
        raters.append(block)

    def strata(key, labels) -> list[dict]:
        out = []
        groups: dict = defaultdict(list)
        for i in scored_items:
            groups[key(i)].append(i.uid)
        for value in sorted(groups):
            group = groups[value]
            block = human_block([r for u in group for r in per_item[u]])
            block["items"] = len(group)
            block["best_model"] = best_on(group)
            block["advantage"] = (
                block["overall"] - block["best_model"]
                if block["overall"] is not None and block["best_model"] is not None
                else None
            )
            out.append({**labels(value), **block})
        return out

    duration_bins = strata(
        lambda i: i.bin, lambda b: {"bin": b, "label": bin_labels[b] if b < len(bin_labels) else ""}
    )
    scenes = strata(lambda i: i.scene, lambda s: {"scene": s})

    return {
        "items": len(items),
        "scored_items": n_items,
        "responses": len(counted),
        "judged": judged,
        "missing_judgements": missing_judgements,
        "broken": {
            "responses": len(broken),
            "items": sorted({r.uid for r in broken}),
        },
        "bootstrap": {"replicates": replicates, "seed": seed, "cluster": "source video"},
        "similarity": similarity.describe(),
        "human": human,
        "answerability": answerability,
        "agreement": agreement,
        "next_ambiguity": ambiguity,
        "models": model_rows,
        "best_model": best["model"] if best else None,
        "raters": raters,
        "duration_bins": duration_bins,
        "scenes": scenes,
    }


CSV_COLUMNS = ("section", "name", "dimension", "metric", "value", "n", "low", "high")


def report_csv(document: dict) -> str:
    """The report as one CSV table with a ``section`` column (human, answerability, agreement,
    next_ambiguity, model, gap, rater, duration_bin, scene); one figure per row."""
    import csv
    import io

    rows: list[tuple] = []

    def add(section, name, dim, metric, value, n=None, low=None, high=None):
        rows.append((section, name, dim, metric, value, n, low, high))

    for key, block in document["human"].items():
        low, high = block.get("ci95", [None, None])
        add("human", "", key, "score", block["score"], block["n"], low, high)
    for dim, block in document["answerability"].items():
        for metric in ("answerable_rate", "mean_confidence"):
            add("answerability", "", dim, metric, block[metric], block["n"])
        add("answerability", "", dim, "fleiss_kappa", block["fleiss_kappa"], block["kappa_items"])
        add("answerability", "", dim, "raw_agreement", block["raw_agreement"], block["kappa_items"])
        add("answerability", "", dim, "majority_answerable_items",
            block["majority_answerable_items"], block["items"])  # fmt: skip
        add("answerability", "", dim, "human_majority", block["human_majority"],
            block["human_majority_n"])  # fmt: skip
    for dim, block in document["agreement"].items():
        add("agreement", "", dim, "semantic_agreement", block["semantic_agreement"], block["pairs"])
    amb = document["next_ambiguity"]
    for metric in ("single_rate", "multiple_rate", "unanswerable_rate"):
        add("next_ambiguity", "", "next", metric, amb[metric], amb["n"])
    for metric in ("mean_clusters", "mean_normalized_entropy", "top3_cluster_share"):
        add("next_ambiguity", "", "next", metric, amb[metric], amb["answerable_items"])
    for row in document["models"]:
        for dim in (*DIMENSIONS, "overall"):
            add("model", row["model"], dim, "score", row[dim], row["steps"])
        for dim in DIMENSIONS:
            add("model", row["model"], dim, "majority_score", row[f"{dim}_majority"],
                row[f"{dim}_majority_n"])  # fmt: skip
        for dim, gap in row["gap"].items():
            add("gap", row["model"], dim, "gap", gap["gap"], gap["n"], *gap["ci95"])
    for section, key, blocks in (
        ("rater", "rater", document["raters"]),
        ("duration_bin", "label", document["duration_bins"]),
        ("scene", "scene", document["scenes"]),
    ):
        for block in blocks:
            for metric, value in block.items():
                if metric in (key, "n", "bin") or isinstance(value, (dict, list, str)):
                    continue
                add(section, block[key], "", metric, value, block["n"])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    writer.writerows(rows)
    return out.getvalue()

"""The balanced judge-validation design: an exact mixed-integer program (docs/judge-validation.md).

Pure (numpy, scipy, pydantic; no Django). The pool is every valid pairing of a step with one
closed-model and one open-model prediction; the program picks at most one pairing per step so
that every hard constraint holds:

- ``steps_per_scene`` steps from each scene of the pool (or ``scene_counts`` per scene);
- every source video of the pool covered by at least one step (``cover_videos``);
- exact step counts per duration bin (``duration_counts`` over ``bin_edges_us``);
- exactly ``triplets_per_model`` triplets for every model (a step gives one triplet to its
  closed model and one to its open model);
- every closed/open pairing used by ``pairing_min`` to ``pairing_max`` steps.

The seed breaks ties: the objective is the sum of the chosen pairings' seeded ranks
(``studio.canonical.seeded_rank`` of ``"<sample>:<closed>:<open>"``), so the design is the
seeded choice among all feasible ones, identical for the same pool and seed whatever the order
the pool comes in, and different for another seed. It is solved to optimality by HiGHS through
``scipy.optimize.milp``. When no design exists, ``Infeasible`` names the constraint: first each
family alone is checked, then each family is relaxed in turn; the message names the family whose
removal makes the rest feasible.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from review.manifests.sampling import US, Infeasible, bin_labels, bin_of
from studio.canonical import MAX_SAFE_INTEGER, seeded_rank

PAPER_BIN_EDGES_US = (1 * US, 2 * US, 4 * US, 10 * US)
PAPER_DURATION_COUNTS = (36, 43, 37, 33, 1)
FAMILIES = ("scenes", "videos", "durations", "models", "pairings")
FAMILY_TEXT = {
    "scenes": "steps per scene",
    "videos": "every source video covered",
    "durations": "steps per duration bin",
    "models": "triplets per model",
    "pairings": "closed/open pairing balance",
}


@dataclass(frozen=True)
class PoolTriplet:
    """One valid pairing: a step with a closed-model and an open-model prediction of it."""

    sample_id: str
    scene: str
    video: str
    duration_us: int
    closed: str  # the closed model's run name
    open: str  # the open model's run name

    @property
    def key(self) -> str:
        return f"{self.sample_id}:{self.closed}:{self.open}"


class SelectionParams(BaseModel):
    """The program's constraint values (defaults: the paper's, appendix H.1)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    steps_per_scene: int | None = Field(default=10, ge=1, description="Steps from every scene")
    scene_counts: dict[str, int] | None = Field(
        default=None, description="Steps per scene, instead of steps_per_scene"
    )
    cover_videos: bool = Field(default=True, description="Every source video at least once")
    bin_edges_us: list[int] = Field(default=list(PAPER_BIN_EDGES_US))
    duration: str = Field(default="step", pattern="^(step|observation)$")
    duration_counts: list[int] | None = Field(
        default=list(PAPER_DURATION_COUNTS), description="Steps per duration bin (exact)"
    )
    triplets_per_model: int | None = Field(default=50, ge=0)
    pairing_min: int | None = Field(default=16, ge=0)
    pairing_max: int | None = Field(default=17, ge=0)
    time_limit_s: float = Field(default=120.0, gt=0, le=3600)

    @field_validator("bin_edges_us")
    @classmethod
    def _edges(cls, edges: list[int]) -> list[int]:
        if any(e <= 0 or e > MAX_SAFE_INTEGER for e in edges):
            raise ValueError("bin edges must be positive integers of microseconds")
        if any(b <= a for a, b in itertools.pairwise(edges)):
            raise ValueError("bin edges must increase strictly")
        return edges

    @model_validator(mode="after")
    def _check(self):
        if self.scene_counts is not None and any(v < 0 for v in self.scene_counts.values()):
            raise ValueError("scene_counts must be non-negative")
        if self.duration_counts is not None:
            if len(self.duration_counts) != len(self.bin_edges_us) + 1:
                raise ValueError(
                    f"duration_counts needs {len(self.bin_edges_us) + 1} values "
                    f"(one per bin of bin_edges_us)"
                )
            if any(v < 0 for v in self.duration_counts):
                raise ValueError("duration_counts must be non-negative")
        if (
            self.pairing_min is not None
            and self.pairing_max is not None
            and self.pairing_min > self.pairing_max
        ):
            raise ValueError("pairing_min is above pairing_max")
        return self


@dataclass
class Design:
    """The chosen pairings (canonical order: by sample id) and the counts they reach."""

    chosen: list[PoolTriplet]
    params: SelectionParams
    seed: int
    counts: dict = field(default_factory=dict)

    @property
    def sample_ids(self) -> list[str]:
        return [t.sample_id for t in self.chosen]

    def pairs(self) -> list[list[str]]:
        """``[sample_id, closed run, open run]`` rows, as the manifest records them."""
        return [[t.sample_id, t.closed, t.open] for t in self.chosen]


def _canonical_pool(pool: Iterable[PoolTriplet]) -> list[PoolTriplet]:
    rows = sorted(set(pool), key=lambda t: (t.sample_id, t.closed, t.open))
    seen: dict[str, PoolTriplet] = {}
    for t in rows:
        first = seen.setdefault(t.sample_id, t)
        if (first.scene, first.video, first.duration_us) != (t.scene, t.video, t.duration_us):
            raise Infeasible(
                f"Step {t.sample_id} appears with two different scenes, videos or durations."
            )
    closed = {t.closed for t in rows}
    opened = {t.open for t in rows}
    both = sorted(closed & opened)
    if both:
        raise Infeasible(f"Model runs listed as both closed and open: {', '.join(both)}.")
    return rows


class _Program:
    """The constraint matrix, built once, by family."""

    def __init__(self, rows: list[PoolTriplet], params: SelectionParams, seed: int) -> None:
        self.rows, self.params = rows, params
        n = len(rows)
        self.n = n
        self.steps = sorted({t.sample_id for t in rows})
        self.scenes = sorted({t.scene for t in rows})
        self.videos = sorted({t.video for t in rows})
        self.closed = sorted({t.closed for t in rows})
        self.opened = sorted({t.open for t in rows})
        self.bins = [bin_of(t.duration_us, params.bin_edges_us) for t in rows]
        if params.scene_counts is not None:
            unknown = sorted(set(params.scene_counts) - set(self.scenes))
            if unknown:
                raise Infeasible(
                    f"Constraint 'steps per scene': scene(s) without any pooled step: "
                    f"{', '.join(unknown)}."
                )
            self.scene_target = {s: params.scene_counts.get(s, 0) for s in self.scenes}
        elif params.steps_per_scene is not None:
            self.scene_target = dict.fromkeys(self.scenes, params.steps_per_scene)
        else:
            self.scene_target = None
        cost = np.empty(n)
        for i, t in enumerate(rows):
            cost[i] = int.from_bytes(seeded_rank(seed, t.key)[:6], "big") / 2.0**48
        self.cost = cost
        self.families: dict[str, list[tuple[str, np.ndarray, float, float]]] = {}
        self._build()

    def _group(self, key_of) -> dict:
        groups: dict = {}
        for i, t in enumerate(self.rows):
            groups.setdefault(key_of(i, t), []).append(i)
        return groups

    def _build(self) -> None:
        p = self.params
        fam = self.families
        step_groups = self._group(lambda i, t: t.sample_id)
        # Structure: one pairing per step at most (always on).
        fam["structure"] = [(f"step {s}", idx, 0.0, 1.0) for s, idx in sorted(step_groups.items())]
        if self.scene_target is not None:
            groups = self._group(lambda i, t: t.scene)
            fam["scenes"] = [
                (f"scene {s}", groups[s], self.scene_target[s], self.scene_target[s])
                for s in self.scenes
            ]
        if p.cover_videos:
            groups = self._group(lambda i, t: t.video)
            fam["videos"] = [(f"video {v}", groups[v], 1.0, np.inf) for v in self.videos]
        if p.duration_counts is not None:
            groups = self._group(lambda i, t: self.bins[i])
            labels = bin_labels(p.bin_edges_us)
            fam["durations"] = [
                (f"duration bin {labels[b]}", groups.get(b, []), c, c)
                for b, c in enumerate(p.duration_counts)
            ]
        if p.triplets_per_model is not None:
            k = p.triplets_per_model
            closed = self._group(lambda i, t: t.closed)
            opened = self._group(lambda i, t: t.open)
            fam["models"] = [(f"model {m}", closed[m], k, k) for m in self.closed] + [
                (f"model {m}", opened[m], k, k) for m in self.opened
            ]
        if p.pairing_min is not None or p.pairing_max is not None:
            lo = p.pairing_min or 0
            hi = np.inf if p.pairing_max is None else p.pairing_max
            groups = self._group(lambda i, t: (t.closed, t.open))
            fam["pairings"] = [
                (f"pairing {c} + {o}", groups.get((c, o), []), lo, hi)
                for c in self.closed
                for o in self.opened
            ]

    def total_steps(self) -> int | None:
        """The design's step count, as implied by the scene or duration targets."""
        if self.scene_target is not None:
            return sum(self.scene_target.values())
        if self.params.duration_counts is not None:
            return sum(self.params.duration_counts)
        return None

    def solve(self, families: Iterable[str], *, objective: bool = True, integral: bool = True):
        row_ix: list[np.ndarray] = []
        col_ix: list[np.ndarray] = []
        lo, hi = [], []
        for name in ("structure", *families):
            for _, idx, a, b in self.families.get(name, []):
                col_ix.append(np.asarray(idx, dtype=np.int64))
                row_ix.append(np.full(len(idx), len(lo), dtype=np.int64))
                lo.append(a)
                hi.append(b)
        total = self.total_steps()
        if total is not None:
            col_ix.append(np.arange(self.n, dtype=np.int64))
            row_ix.append(np.full(self.n, len(lo), dtype=np.int64))
            lo.append(total)
            hi.append(total)
        rows = np.concatenate(row_ix) if row_ix else np.zeros(0, np.int64)
        cols = np.concatenate(col_ix) if col_ix else np.zeros(0, np.int64)
        # scipy's solver is imported here, when a design is solved, not with the pages.
        from scipy.optimize import Bounds, LinearConstraint, milp
        from scipy.sparse import csr_array

        matrix = csr_array((np.ones(len(rows)), (rows, cols)), shape=(len(lo), self.n))
        constraints = LinearConstraint(matrix, np.array(lo, float), np.array(hi, float))
        cost = self.cost if objective else np.zeros(self.n)
        return milp(
            cost,
            constraints=constraints,
            integrality=np.ones(self.n) if integral else np.zeros(self.n),
            bounds=Bounds(0, 1),
            options={"time_limit": self.params.time_limit_s, "mip_rel_gap": 0.0, "presolve": True},
        )


def _first_violation(program: _Program, family: str) -> str:
    """A readable reason one family alone cannot be met (simple counting checks)."""
    for label, idx, lo, _hi in program.families.get(family, []):
        steps = {program.rows[i].sample_id for i in idx}
        if len(steps) < lo:
            return f"{label} needs {lo:g} but the pool has {len(steps)} step(s) for it"
    return "its targets cannot be met together with one pairing per step"


def _diagnose(program: _Program) -> str:
    active = [f for f in FAMILIES if f in program.families]
    total = program.total_steps()
    p = program.params
    if (
        program.scene_target is not None
        and p.duration_counts is not None
        and sum(p.duration_counts) != total
    ):
        return (
            f"Constraint 'steps per duration bin': the bins ask for {sum(p.duration_counts)} steps "
            f"but the scenes ask for {total}."
        )
    if p.triplets_per_model is not None and total is not None:
        for side, models in (("closed", program.closed), ("open", program.opened)):
            if len(models) * p.triplets_per_model != total:
                return (
                    f"Constraint 'triplets per model': {len(models)} {side} model(s) x "
                    f"{p.triplets_per_model} triplets is not the design's {total} steps."
                )
    for family in active:
        if program.solve([family], objective=False).status != 0:
            return (
                f"Constraint '{FAMILY_TEXT[family]}' cannot be met: "
                + _first_violation(program, family)
                + "."
            )
    for family in active:
        rest = [f for f in active if f != family]
        if program.solve(rest, objective=False).status == 0:
            others = ", ".join(FAMILY_TEXT[f] for f in rest) or "nothing else"
            return (
                f"Constraint '{FAMILY_TEXT[family]}' cannot be met together with the others "
                f"({others}); without it a design exists."
            )
    return "No design meets these constraints (no single constraint is to blame)."


def select_triplets(
    pool: Iterable[PoolTriplet], params: SelectionParams | Mapping | None = None, *, seed: int
) -> Design:
    """The seeded optimal design, or ``Infeasible`` naming the constraint that cannot be met."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SAFE_INTEGER:
        raise Infeasible("Use a seed from 0 to 2**53 - 1.")
    if not isinstance(params, SelectionParams):
        params = SelectionParams.model_validate(dict(params or {}))
    rows = _canonical_pool(pool)
    if not rows:
        raise Infeasible("The pool holds no valid triplet.")
    program = _Program(rows, params, seed)
    result = program.solve([f for f in FAMILIES if f in program.families])
    if result.status == 1:
        raise Infeasible(
            f"The solver stopped at its time limit ({params.time_limit_s:g} s) "
            "without a proven design."
        )
    if result.status != 0 or result.x is None:
        raise Infeasible(_diagnose(program))
    chosen = [rows[i] for i in np.flatnonzero(result.x > 0.5)]
    chosen.sort(key=lambda t: t.sample_id)
    return Design(chosen=chosen, params=params, seed=seed, counts=design_counts(chosen, params))


def design_counts(chosen: Sequence[PoolTriplet], params: SelectionParams) -> dict:
    """What the preview shows: the counts the design reaches, by constraint family."""
    labels = bin_labels(params.bin_edges_us)
    bins = Counter(bin_of(t.duration_us, params.bin_edges_us) for t in chosen)
    models = Counter(t.closed for t in chosen) + Counter(t.open for t in chosen)
    return {
        "steps": len(chosen),
        "triplets": 2 * len(chosen),
        "scenes": dict(sorted(Counter(t.scene for t in chosen).items())),
        "videos_covered": len({t.video for t in chosen}),
        "duration_bins": [
            {"bin": b, "label": label, "steps": bins.get(b, 0)} for b, label in enumerate(labels)
        ],
        "models": dict(sorted(models.items())),
        "pairings": [
            {"closed": c, "open": o, "steps": n}
            for (c, o), n in sorted(Counter((t.closed, t.open) for t in chosen).items())
        ],
    }


def pool_videos(pool: Iterable[PoolTriplet]) -> int:
    return len({t.video for t in pool})

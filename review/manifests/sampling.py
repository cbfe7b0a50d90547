"""Seeded sample designs over the steps of a frozen release (docs/manifests.md, "Designs").

Pure Python, no Django: a design takes ``Candidate`` rows and returns a ``Selection``. Every
choice is deterministic whatever the database, insertion order or machine: candidates are first
sorted by sample id, ties are broken by fixed keys, and the seeded order is
``studio.canonical.seeded_rank`` (SHA-256 of "<seed>:<id>"), never a random generator whose stream
could change with a library version.

- ``stratified`` (main paper B.2): proportional allocation by largest remainder with a minimum that
  covers every scene, video and duration bin; seeded selection inside each stratum.
- ``quota`` (main paper D.1, H.1): exact per-scene quotas (a base plus one for listed scenes, or
  explicit), optional exact duration-bin targets, every video covered; solved as a min-cost flow
  whose costs are the seeded ranks, so it is the seeded choice among all feasible ones.
  An infeasible design raises ``Infeasible`` naming the constraint that cannot be met.
- ``complete_groups`` (second paper, appendix D): whole groups, without replacement, by seeded rank.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from studio.canonical import MAX_SAFE_INTEGER, seeded_rank

US = 1_000_000
DEFAULT_BIN_EDGES_US = (1 * US, 2 * US, 4 * US)
DIMENSIONS = ("scene", "video", "bin")


class Infeasible(ValueError):
    """The design cannot be met; the message names the constraint."""


@dataclass(frozen=True)
class Candidate:
    sample_id: str
    scene: str
    video: str
    start_us: int
    cutoff_us: int
    end_us: int

    def duration_us(self, measure: str) -> int:
        return (self.cutoff_us if measure == "observation" else self.end_us) - self.start_us


# --- Design parameters (validated; their dump is what a manifest records) ----------------------


class _Design(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    bin_edges_us: list[int] = Field(
        default=list(DEFAULT_BIN_EDGES_US),
        description="Duration bin edges in µs; bins are [0, e1), [e1, e2), …, [last, ∞)",
    )
    duration: Literal["step", "observation"] = Field(
        default="step", description="step = end - start; observation = cutoff - start"
    )

    @field_validator("bin_edges_us")
    @classmethod
    def _edges(cls, edges: list[int]) -> list[int]:
        if any(e <= 0 or e > MAX_SAFE_INTEGER for e in edges):
            raise ValueError("bin edges must be positive integers of microseconds")
        if any(b <= a for a, b in itertools.pairwise(edges)):
            raise ValueError("bin edges must increase strictly")
        return edges


class StratifiedDesign(_Design):
    method: Literal["stratified"] = "stratified"
    target_n: int = Field(gt=0, description="How many steps to draw")
    strata: list[Literal["scene", "video", "bin"]] = Field(default=["video", "bin"])
    cover: list[Literal["scene", "video", "bin"]] = Field(
        default=["scene", "video", "bin"], description="Dimensions whose every value gets ≥ 1"
    )

    @model_validator(mode="after")
    def _check(self):
        if not self.strata or len(set(self.strata)) != len(self.strata):
            raise ValueError("strata must name scene, video and/or bin, each once")
        determined = set(self.strata) | ({"scene"} if "video" in self.strata else set())
        for dim in self.cover:
            if dim not in determined:
                raise ValueError(f"covering every {dim} needs '{dim}' among the strata")
        return self


class QuotaDesign(_Design):
    method: Literal["quota"] = "quota"
    scene_quota: int | None = Field(default=None, ge=0, description="Steps per scene")
    scene_extra: list[str] = Field(default=[], description="Scenes that get one more step")
    scene_quotas: dict[str, int] | None = Field(
        default=None, description="Explicit steps per scene (instead of scene_quota)"
    )
    bin_targets: list[int] | None = Field(
        default=None, description="Exact steps per duration bin, in bin order"
    )
    cover_videos: bool = True

    @model_validator(mode="after")
    def _check(self):
        if (self.scene_quota is None) == (self.scene_quotas is None):
            raise ValueError("give either scene_quota (with scene_extra) or scene_quotas")
        if self.scene_quotas is not None and self.scene_extra:
            raise ValueError("scene_extra goes with scene_quota, not with scene_quotas")
        if self.scene_quotas is not None and any(q < 0 for q in self.scene_quotas.values()):
            raise ValueError("scene quotas cannot be negative")
        if len(set(self.scene_extra)) != len(self.scene_extra):
            raise ValueError("a scene is listed twice in scene_extra")
        if self.bin_targets is not None:
            if len(self.bin_targets) != len(self.bin_edges_us) + 1:
                raise ValueError(
                    f"bin_targets needs {len(self.bin_edges_us) + 1} numbers, one per bin"
                )
            if any(t < 0 for t in self.bin_targets):
                raise ValueError("bin targets cannot be negative")
        return self


class GroupDesign(_Design):
    method: Literal["complete_groups"] = "complete_groups"
    group_by: Literal["video", "scene"] = "video"
    n_groups: int = Field(gt=0, description="How many complete groups to draw")


DESIGNS = {"stratified": StratifiedDesign, "quota": QuotaDesign, "complete_groups": GroupDesign}


def parse_design(method: str, params: Mapping) -> _Design:
    """Validate parameters (pydantic ValidationError on bad input)."""
    try:
        model = DESIGNS[method]
    except KeyError:
        raise Infeasible(f"Unknown design method {method!r}.") from None
    return model.model_validate({**params, "method": method})


def bin_of(duration_us: int, edges: Sequence[int]) -> int:
    for i, edge in enumerate(edges):
        if duration_us < edge:
            return i
    return len(edges)


def bin_labels(edges: Sequence[int]) -> list[str]:
    """Readable names of the bins: "<1 s", "1-2 s", "2-4 s", "≥4 s" for the default edges."""

    def s(us: int) -> str:
        return f"{us / US:g}"

    if not edges:
        return ["all"]
    inner = [f"{s(a)}-{s(b)} s" for a, b in itertools.pairwise(edges)]
    return [f"<{s(edges[0])} s", *inner, f"≥{s(edges[-1])} s"]


# --- Result ----------------------------------------------------------------------------------


@dataclass
class Selection:
    """The chosen ids with the bin (and group) of each, plus targets for the preview."""

    sample_ids: list[str]
    bins: dict[str, int]
    groups: dict[str, str] = field(default_factory=dict)
    target_n: int = 0
    scene_targets: dict[str, int] = field(default_factory=dict)
    bin_targets: dict[int, int] = field(default_factory=dict)
    video_targets: dict[str, int] = field(default_factory=dict)
    cell_targets: dict[tuple[str, int], int] = field(default_factory=dict)


def _sorted(candidates: Iterable[Candidate]) -> list[Candidate]:
    rows = sorted(candidates, key=lambda c: c.sample_id.encode("utf-8"))
    for a, b in itertools.pairwise(rows):
        if a.sample_id == b.sample_id:
            raise Infeasible(f"Sample {a.sample_id} appears twice among the candidates.")
    return rows


def _by_rank(rows: Iterable[Candidate], seed: int) -> list[Candidate]:
    return sorted(rows, key=lambda c: (seeded_rank(seed, c.sample_id), c.sample_id))


def select(design: _Design, candidates: Iterable[Candidate], *, seed: int) -> Selection:
    rows = _sorted(candidates)
    if not rows:
        raise Infeasible("The release has no steps to sample from.")
    if isinstance(design, StratifiedDesign):
        return _stratified(design, rows, seed)
    if isinstance(design, QuotaDesign):
        return _quota(design, rows, seed)
    return _groups(design, rows, seed)


# --- Stratified ------------------------------------------------------------------------------


def _key(c: Candidate, b: int, dims: Sequence[str]) -> tuple:
    values = {"scene": c.scene, "video": c.video, "bin": b}
    return tuple(values[d] for d in dims)


def allocate(
    population: Mapping[tuple, int], n: int, minimum: Mapping[tuple, int] | None = None
) -> dict[tuple, int]:
    """Proportional allocation of ``n`` by largest remainder, honouring per-stratum minimums.

    Ideal share q_s = n·N_s/N. Start from max(floor(q_s), min_s) capped at N_s; while the sum is
    short, add one to the stratum with the largest remainder q_s - a_s (ties: smaller key);
    while it is over (minimums pushed it up), take one from the stratum with the smallest remainder
    that stays at or above its minimum. Remainders are compared as exact integers (n·N_s - a_s·N).
    """
    minimum = minimum or {}
    total = sum(population.values())
    keys = sorted(population)
    alloc = {
        k: min(population[k], max(n * population[k] // total, minimum.get(k, 0))) for k in keys
    }

    def remainder(k):
        return n * population[k] - alloc[k] * total

    while sum(alloc.values()) < n:
        open_keys = [k for k in keys if alloc[k] < population[k]]
        best = min(open_keys, key=lambda k: (-remainder(k), k))
        alloc[best] += 1
    while sum(alloc.values()) > n:
        open_keys = [k for k in keys if alloc[k] > minimum.get(k, 0)]
        worst = min(open_keys, key=lambda k: (remainder(k), k))
        alloc[worst] -= 1
    return alloc


def _stratified(design: StratifiedDesign, rows: list[Candidate], seed: int) -> Selection:
    edges, dims = design.bin_edges_us, design.strata
    bins = {c.sample_id: bin_of(c.duration_us(design.duration), edges) for c in rows}
    members: dict[tuple, list[Candidate]] = defaultdict(list)
    for c in rows:
        members[_key(c, bins[c.sample_id], dims)].append(c)
    population = {k: len(v) for k, v in members.items()}
    if design.target_n > len(rows):
        raise Infeasible(f"target_n {design.target_n} exceeds the {len(rows)} steps available.")

    # Coverage: for each uncovered scene / video / bin, the largest stratum holding it gets a
    # minimum of one (ties: smaller key). Strata are pure in every covered dimension (checked by
    # the design), so one pick per value suffices.
    minimum: dict[tuple, int] = {}
    for dim in DIMENSIONS:
        if dim not in design.cover:
            continue
        values = sorted({_value(c, bins, dim) for c in rows})
        for value in values:
            holders = [k for k in sorted(members) if _value(members[k][0], bins, dim) == value]
            if any(minimum.get(k) for k in holders):
                continue
            minimum[min(holders, key=lambda k: (-population[k], k))] = 1
    if len(minimum) > design.target_n:
        raise Infeasible(
            f"target_n {design.target_n} is below the {len(minimum)} steps needed to cover every "
            f"{', '.join(design.cover)}."
        )
    alloc = allocate(population, design.target_n, minimum)
    chosen: list[str] = []
    for key in sorted(members):
        chosen.extend(c.sample_id for c in _by_rank(members[key], seed)[: alloc[key]])
    selection = Selection(sample_ids=sorted(chosen), bins={s: bins[s] for s in chosen})
    selection.target_n = design.target_n
    # Targets for the preview: the allocation summed over whatever the strata determine.
    for key, count in alloc.items():
        sample = members[key][0]
        b = bins[sample.sample_id]
        if "video" in dims:
            selection.video_targets[sample.video] = (
                selection.video_targets.get(sample.video, 0) + count
            )
        if "video" in dims or "scene" in dims:
            selection.scene_targets[sample.scene] = (
                selection.scene_targets.get(sample.scene, 0) + count
            )
        if "bin" in dims:
            selection.bin_targets[b] = selection.bin_targets.get(b, 0) + count
        if "bin" in dims and ("video" in dims or "scene" in dims):
            cell = (sample.scene, b)
            selection.cell_targets[cell] = selection.cell_targets.get(cell, 0) + count
    return selection


def _value(c: Candidate, bins: Mapping[str, int], dim: str):
    return {"scene": c.scene, "video": c.video, "bin": bins[c.sample_id]}[dim]


# --- Quota-balanced: a min-cost flow -----------------------------------------------------------


class _Flow:
    """Successive shortest paths (Bellman-Ford on the residual graph) for small graphs.

    An arc may carry a convex cost: ``costs`` lists the price of each successive unit (ascending).
    That is how one (video, bin) cell offers its steps cheapest-ranked first without one arc per
    step. Arcs are scanned in insertion order and only strictly shorter paths replace a label, so
    the result depends only on the input order, which the caller fixes.
    """

    def __init__(self, n_nodes: int) -> None:
        self.n = n_nodes
        self.arcs: list[list] = []  # [tail, head, costs, flow]

    def add(self, tail: int, head: int, costs: list[int]) -> int:
        self.arcs.append([tail, head, costs, 0])
        return len(self.arcs) - 1

    def run(self, source: int, sink: int, limit: int) -> int:
        moved = 0
        inf = float("inf")
        while moved < limit:
            dist = [inf] * self.n
            via: list[tuple[int, int] | None] = [None] * self.n
            dist[source] = 0
            for _ in range(self.n):
                changed = False
                for index, (tail, head, costs, flow) in enumerate(self.arcs):
                    if flow < len(costs) and dist[tail] != inf:
                        d = dist[tail] + costs[flow]
                        if d < dist[head]:
                            dist[head], via[head], changed = d, (index, 1), True
                    if flow > 0 and dist[head] != inf:
                        d = dist[head] - costs[flow - 1]
                        if d < dist[tail]:
                            dist[tail], via[tail], changed = d, (index, -1), True
                if not changed:
                    break
            if dist[sink] == inf:
                break
            node = sink
            while node != source:
                index, direction = via[node]
                self.arcs[index][3] += direction
                node = self.arcs[index][0] if direction == 1 else self.arcs[index][1]
            moved += 1
        return moved


def _quota(design: QuotaDesign, rows: list[Candidate], seed: int) -> Selection:
    edges = design.bin_edges_us
    labels = bin_labels(edges)
    bins = {c.sample_id: bin_of(c.duration_us(design.duration), edges) for c in rows}
    scenes = sorted({c.scene for c in rows})
    videos = sorted({c.video for c in rows})
    scene_of = {c.video: c.scene for c in rows}
    n_bins = len(edges) + 1

    if design.scene_quotas is not None:
        unknown = sorted(set(design.scene_quotas) - set(scenes))
        if unknown:
            raise Infeasible(f"Scene {unknown[0]} has a quota but no steps in the release.")
        missing = [s for s in scenes if s not in design.scene_quotas]
        if missing:
            raise Infeasible(f"Scene {missing[0]} has steps in the release but no quota.")
        quotas = {s: design.scene_quotas[s] for s in scenes}
    else:
        unknown = sorted(set(design.scene_extra) - set(scenes))
        if unknown:
            raise Infeasible(
                f"Scene {unknown[0]} gets an extra step but has no steps in the release."
            )
        quotas = {s: design.scene_quota + (s in design.scene_extra) for s in scenes}
    n = sum(quotas.values())
    if n == 0:
        raise Infeasible("The scene quotas add up to zero steps.")
    if design.bin_targets is not None and sum(design.bin_targets) != n:
        raise Infeasible(
            f"The duration targets add up to {sum(design.bin_targets)} steps but the scene "
            f"quotas add up to {n}."
        )

    per_scene: dict[str, int] = defaultdict(int)
    per_bin: dict[int, int] = defaultdict(int)
    videos_of: dict[str, list[str]] = defaultdict(list)
    for c in rows:
        per_scene[c.scene] += 1
        per_bin[bins[c.sample_id]] += 1
    for v in videos:
        videos_of[scene_of[v]].append(v)
    for s in scenes:
        if per_scene[s] < quotas[s]:
            raise Infeasible(
                f"Scene {s} has {per_scene[s]} steps, fewer than its quota of {quotas[s]}."
            )
        if design.cover_videos and len(videos_of[s]) > quotas[s]:
            raise Infeasible(
                f"Scene {s} has {len(videos_of[s])} source videos but a quota of {quotas[s]}, "
                "so not every video can be covered."
            )
    if design.bin_targets is not None:
        for b, target in enumerate(design.bin_targets):
            if per_bin[b] < target:
                raise Infeasible(
                    f"Duration bin {labels[b]} has {per_bin[b]} steps, "
                    f"fewer than its target of {target}."
                )

    # Nodes: source, scenes, videos, bins, sink. Arcs in sorted order (the result depends on it).
    ranked = _by_rank(rows, seed)
    rank = {c.sample_id: i for i, c in enumerate(ranked)}
    cells: dict[tuple[str, int], list[Candidate]] = defaultdict(list)
    for c in ranked:
        cells[(c.video, bins[c.sample_id])].append(c)
    source, sink = 0, 1
    scene_node = {s: 2 + i for i, s in enumerate(scenes)}
    video_node = {v: 2 + len(scenes) + i for i, v in enumerate(videos)}
    bin_node = {b: 2 + len(scenes) + len(videos) + b for b in range(n_bins)}
    flow = _Flow(2 + len(scenes) + len(videos) + n_bins)
    # A covered video is worth more than any possible sum of rank costs.
    bonus = len(rows) * n + 1
    scene_arcs = {s: flow.add(source, scene_node[s], [0] * quotas[s]) for s in scenes}
    cover_arcs = {}
    for v in videos:
        size = sum(len(cells.get((v, b), [])) for b in range(n_bins))
        if design.cover_videos:
            cover_arcs[v] = flow.add(scene_node[scene_of[v]], video_node[v], [-bonus])
            flow.add(scene_node[scene_of[v]], video_node[v], [0] * (size - 1))
        else:
            flow.add(scene_node[scene_of[v]], video_node[v], [0] * size)
    cell_arcs = {}
    for (v, b), members in sorted(cells.items()):
        cell_arcs[(v, b)] = flow.add(
            video_node[v], bin_node[b], [rank[c.sample_id] for c in members]
        )
    bin_arcs = {}
    for b in range(n_bins):
        capacity = design.bin_targets[b] if design.bin_targets is not None else n
        bin_arcs[b] = flow.add(bin_node[b], sink, [0] * capacity)

    placed = flow.run(source, sink, n)
    if placed < n:
        short_scenes = [
            f"{s} ({flow.arcs[scene_arcs[s]][3]} of {quotas[s]})"
            for s in scenes
            if flow.arcs[scene_arcs[s]][3] < quotas[s]
        ]
        short_bins = [
            f"{labels[b]} ({flow.arcs[bin_arcs[b]][3]} of {design.bin_targets[b]})"
            for b in range(n_bins)
            if design.bin_targets is not None and flow.arcs[bin_arcs[b]][3] < design.bin_targets[b]
        ]
        raise Infeasible(
            f"The scene quotas and duration targets cannot be met together: at most {placed} of "
            f"{n} steps fit. Short of quota: {', '.join(short_scenes) or 'none'}; "
            f"short of target: {', '.join(short_bins) or 'none'}."
        )
    uncovered = [v for v, arc in cover_arcs.items() if flow.arcs[arc][3] == 0]
    if uncovered:
        v = uncovered[0]
        raise Infeasible(
            f"Source video {v[:12]}… of scene {scene_of[v]} cannot be covered together with "
            "the scene quotas and duration targets."
        )
    chosen = []
    for key, arc in cell_arcs.items():
        chosen.extend(c.sample_id for c in cells[key][: flow.arcs[arc][3]])
    selection = Selection(sample_ids=sorted(chosen), bins={s: bins[s] for s in chosen})
    selection.target_n = n
    selection.scene_targets = dict(quotas)
    if design.bin_targets is not None:
        selection.bin_targets = dict(enumerate(design.bin_targets))
    if design.cover_videos:
        selection.video_targets = dict.fromkeys(videos, 1)  # "at least one"
    return selection


# --- Complete groups -------------------------------------------------------------------------


def sample_groups(groups: Mapping[str, Sequence[str]], *, n_groups: int, seed: int) -> list[str]:
    """Draw ``n_groups`` whole groups without replacement by seeded rank; returns group ids.

    Works for any grouping (videos here, question-answer groups elsewhere): every member of a
    drawn group is in the sample, and no group is drawn twice.
    """
    if n_groups > len(groups):
        raise Infeasible(f"n_groups {n_groups} exceeds the {len(groups)} groups available.")
    order = sorted(groups, key=lambda g: (seeded_rank(seed, g), g))
    return sorted(order[:n_groups])


def _groups(design: GroupDesign, rows: list[Candidate], seed: int) -> Selection:
    bins = {c.sample_id: bin_of(c.duration_us(design.duration), design.bin_edges_us) for c in rows}
    members: dict[str, list[str]] = defaultdict(list)
    for c in rows:
        members[c.video if design.group_by == "video" else c.scene].append(c.sample_id)
    drawn = sample_groups(members, n_groups=design.n_groups, seed=seed)
    chosen = sorted(s for g in drawn for s in members[g])
    groups = {s: g for g in drawn for s in members[g]}
    selection = Selection(sample_ids=chosen, bins={s: bins[s] for s in chosen}, groups=groups)
    selection.target_n = len(chosen)
    return selection


# --- Preview ---------------------------------------------------------------------------------


def preview(design: _Design, candidates: Iterable[Candidate], selection: Selection) -> dict:
    """Achieved counts per scene x bin, per scene, per bin and per video next to the targets."""
    edges = design.bin_edges_us
    labels = bin_labels(edges)
    chosen = set(selection.sample_ids)
    available: dict[tuple, int] = defaultdict(int)
    achieved: dict[tuple, int] = defaultdict(int)
    scene_of = {}
    for c in candidates:
        b = bin_of(c.duration_us(design.duration), edges)
        scene_of[c.video] = c.scene
        for key in (("cell", c.scene, b), ("scene", c.scene), ("bin", b), ("video", c.video)):
            available[key] += 1
            if c.sample_id in chosen:
                achieved[key] += 1
    scenes = sorted(set(scene_of.values()))

    def target(table: Mapping, key):
        return table.get(key) if table else None

    return {
        "target_n": selection.target_n,
        "achieved_n": len(selection.sample_ids),
        "bins": [{"index": i, "label": label} for i, label in enumerate(labels)],
        "scene_bin": [
            {
                "scene": s,
                "bin": b,
                "available": available[("cell", s, b)],
                "target": target(selection.cell_targets, (s, b)),
                "achieved": achieved[("cell", s, b)],
            }
            for s in scenes
            for b in range(len(labels))
        ],
        "scenes": [
            {
                "scene": s,
                "available": available[("scene", s)],
                "target": target(selection.scene_targets, s),
                "achieved": achieved[("scene", s)],
            }
            for s in scenes
        ],
        "bin_totals": [
            {
                "bin": b,
                "label": labels[b],
                "available": available[("bin", b)],
                "target": target(selection.bin_targets, b),
                "achieved": achieved[("bin", b)],
            }
            for b in range(len(labels))
        ],
        "videos": [
            {
                "video": v,
                "scene": scene_of[v],
                "available": available[("video", v)],
                "target": target(selection.video_targets, v),
                "achieved": achieved[("video", v)],
            }
            for v in sorted(scene_of)
        ],
    }

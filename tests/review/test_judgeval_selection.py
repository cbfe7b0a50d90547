"""The balanced judge-validation program (review/judgeval/selection.py): pure, no database."""

from __future__ import annotations

import random
import uuid
from collections import Counter

import pytest
from pydantic import ValidationError

from review.judgeval.selection import PoolTriplet, SelectionParams, select_triplets
from review.manifests.sampling import Infeasible

CLOSED, OPEN = ("c1", "c2"), ("o1", "o2")
SMALL = {
    "steps_per_scene": 4,
    "bin_edges_us": [1_000_000, 2_000_000],
    "duration_counts": [4, 4, 4],
    "triplets_per_model": 6,
    "pairing_min": 3,
    "pairing_max": 3,
}


def pool(*, steps_per_scene=12, scenes=3, videos_per_scene=2, long_only_in=None, seed=1):
    rng = random.Random(seed)
    rows = []
    for s in range(scenes):
        for i in range(steps_per_scene):
            sample = str(uuid.UUID(int=rng.getrandbits(128)))
            duration = (500_000, 1_500_000, 2_500_000)[i % 3]
            if long_only_in is not None:  # that scene's steps all long, no long step elsewhere
                duration = 2_500_000 if s == long_only_in else (500_000, 1_500_000)[i % 2]
            video = f"v{s}-{i % videos_per_scene}"
            for c in CLOSED:
                for o in OPEN:
                    rows.append(PoolTriplet(sample, f"scene{s}", video, duration, c, o))
    return rows


def test_design_meets_every_constraint():
    design = select_triplets(pool(), SMALL, seed=5)
    counts = design.counts
    assert counts["steps"] == 12 and counts["triplets"] == 24
    assert counts["scenes"] == {"scene0": 4, "scene1": 4, "scene2": 4}
    assert counts["videos_covered"] == 6
    assert [b["steps"] for b in counts["duration_bins"]] == [4, 4, 4]
    assert counts["models"] == {"c1": 6, "c2": 6, "o1": 6, "o2": 6}
    assert [p["steps"] for p in counts["pairings"]] == [3, 3, 3, 3]
    assert len(set(design.sample_ids)) == 12
    assert design.sample_ids == sorted(design.sample_ids)
    # One row per step: the step, its closed run, its open run.
    assert all(len(row) == 3 and row[1] in CLOSED and row[2] in OPEN for row in design.pairs())


def test_same_seed_same_design_whatever_the_order_other_seed_differs():
    rows = pool()
    first = select_triplets(rows, SMALL, seed=20260713)
    shuffled = rows[:]
    random.Random(3).shuffle(shuffled)
    assert select_triplets(shuffled, SMALL, seed=20260713).pairs() == first.pairs()
    assert select_triplets(rows, SMALL, seed=1).pairs() != first.pairs()


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (
            {
                "steps_per_scene": 13,
                "duration_counts": [13, 13, 13],
                "triplets_per_model": None,
                "pairing_min": None,
                "pairing_max": None,
            },
            "steps per scene",
        ),
        ({"duration_counts": [3, 4, 4]}, "steps per duration bin"),
        ({"triplets_per_model": 5}, "triplets per model"),
        ({"pairing_min": 4, "pairing_max": 4}, "closed/open pairing balance"),
    ],
)
def test_infeasible_design_names_its_constraint(change, named):
    with pytest.raises(Infeasible, match=f"Constraint '{named}'"):
        select_triplets(pool(), {**SMALL, **change}, seed=5)


def test_uncoverable_videos_are_named():
    # Six videos per scene but only four steps per scene: coverage cannot hold.
    with pytest.raises(Infeasible, match="Constraint 'every source video covered'"):
        select_triplets(pool(videos_per_scene=6), SMALL, seed=5)


def test_conflict_between_two_families_is_named_by_relaxation():
    # Long steps exist only in scene0 and at most four may come from a scene, so five long
    # steps are impossible with four per scene, though each family alone holds.
    params = {**SMALL, "duration_counts": [4, 3, 5], "pairing_min": 0, "pairing_max": 12}
    with pytest.raises(Infeasible, match="cannot be met together with the others") as caught:
        select_triplets(pool(long_only_in=0), params, seed=5)
    assert "Constraint 'steps per scene'" in str(caught.value)


def test_pool_problems_are_refused():
    rows = pool()
    clash = PoolTriplet(rows[0].sample_id, "elsewhere", rows[0].video, 1, "c1", "o9")
    with pytest.raises(Infeasible, match="two different scenes"):
        select_triplets([*rows, clash], SMALL, seed=5)
    both = PoolTriplet(
        rows[0].sample_id, rows[0].scene, rows[0].video, rows[0].duration_us, "o1", "o2"
    )
    with pytest.raises(Infeasible, match="both closed and open"):
        select_triplets([*rows, both], SMALL, seed=5)
    with pytest.raises(Infeasible, match="no valid triplet"):
        select_triplets([], SMALL, seed=5)
    with pytest.raises(Infeasible, match="seed"):
        select_triplets(rows, SMALL, seed=-1)


def test_bad_parameters_are_refused():
    with pytest.raises(ValidationError, match="duration_counts needs 3"):
        SelectionParams.model_validate({**SMALL, "duration_counts": [1, 2]})
    with pytest.raises(ValidationError, match="pairing_min is above"):
        SelectionParams.model_validate({**SMALL, "pairing_min": 5, "pairing_max": 4})
    with pytest.raises(ValidationError):
        SelectionParams.model_validate({**SMALL, "unknown": 1})


def test_paper_defaults():
    params = SelectionParams()
    assert params.steps_per_scene == 10
    assert params.duration_counts == [36, 43, 37, 33, 1]
    assert (params.triplets_per_model, params.pairing_min, params.pairing_max) == (50, 16, 17)
    assert Counter(params.bin_edges_us) == Counter([1_000_000, 2_000_000, 4_000_000, 10_000_000])

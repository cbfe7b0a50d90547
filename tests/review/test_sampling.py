"""Sample designs: deterministic, seeded, covering, and clear about what cannot be met."""

import random
import uuid

import pydantic
import pytest

from review.manifests.sampling import (
    Candidate,
    Infeasible,
    allocate,
    bin_of,
    parse_design,
    preview,
    sample_groups,
    select,
)

S = 1_000_000
SCENES = [f"indoor/s{i:02d}" for i in range(15)]


def population(n=3014, n_videos=32, seed=1):
    """A benchmark-sized synthetic release: 15 scenes, 32 videos, durations in every bin."""
    rng = random.Random(seed)
    videos = [(f"{i:064x}", SCENES[i % 15]) for i in range(n_videos)]
    rows = []
    for i in range(n):
        video, scene = videos[i % n_videos] if i < n_videos else videos[rng.randrange(n_videos)]
        d = rng.choice(
            [
                rng.randint(S // 10, S - 1),
                rng.randint(S, 2 * S - 1),
                rng.randint(2 * S, 4 * S - 1),
                rng.randint(4 * S, 10 * S),
            ]
        )
        sid = str(uuid.UUID(int=rng.getrandbits(128)))
        rows.append(Candidate(sid, scene, video, 0, max(1, d // 2), d))
    return rows


HUMAN = {"scene_quota": 21, "scene_extra": SCENES[:5], "bin_targets": [90, 80, 75, 75]}


def test_largest_remainder_allocation_is_proportional_and_exact():
    alloc = allocate({("a",): 50, ("b",): 30, ("c",): 20}, 7)
    # ideal 3.5, 2.1, 1.4 -> floors 3, 2, 1; the one left goes to the largest remainder (a).
    assert alloc == {("a",): 4, ("b",): 2, ("c",): 1}


def test_allocation_honours_minimums_and_keeps_the_total():
    alloc = allocate({("a",): 97, ("b",): 2, ("c",): 1}, 10, {("b",): 1, ("c",): 1})
    assert alloc == {("a",): 8, ("b",): 1, ("c",): 1}
    assert sum(alloc.values()) == 10


def test_bins_are_half_open():
    edges = [S, 2 * S]
    assert [bin_of(d, edges) for d in (0, S - 1, S, 2 * S - 1, 2 * S)] == [0, 0, 1, 1, 2]


def test_stratified_design_hits_target_and_covers_every_scene_video_and_bin():
    rows = population()
    edges = [S // 2, S, 3 * S // 2, 2 * S, 3 * S, 4 * S, 6 * S]  # eight duration intervals
    design = parse_design("stratified", {"target_n": 756, "bin_edges_us": edges})
    selection = select(design, rows, seed=20260713)
    assert len(selection.sample_ids) == 756 == len(set(selection.sample_ids))
    report = preview(design, rows, selection)
    assert report["achieved_n"] == 756
    assert all(r["achieved"] >= 1 for r in report["scenes"])
    assert all(r["achieved"] >= 1 for r in report["videos"])
    assert all(r["achieved"] >= 1 for r in report["bin_totals"])
    assert all(r["achieved"] == r["target"] for r in report["bin_totals"])
    # Proportional: each scene's share is within a few steps of its share of the release.
    for r in report["scenes"]:
        assert abs(r["achieved"] - 756 * r["available"] / 3014) < 4


def test_stratified_minimums_reach_tiny_strata():
    rows = population(n=400, n_videos=32)
    design = parse_design("stratified", {"target_n": 40})
    report = preview(design, rows, select(design, rows, seed=3))
    assert all(r["achieved"] >= 1 for r in report["videos"])


def test_same_seed_same_sample_whatever_the_input_order_other_seed_differs():
    rows = population()
    design = parse_design("quota", HUMAN)
    first = select(design, rows, seed=20260713).sample_ids
    shuffled = list(rows)
    random.Random(99).shuffle(shuffled)
    assert select(design, shuffled, seed=20260713).sample_ids == first
    assert select(design, rows, seed=20260714).sample_ids != first


def test_quota_design_meets_scene_quotas_duration_targets_and_covers_every_video():
    rows = population()
    design = parse_design("quota", HUMAN)
    selection = select(design, rows, seed=20260713)
    report = preview(design, rows, selection)
    assert report["achieved_n"] == 320
    by_scene = {r["scene"]: r["achieved"] for r in report["scenes"]}
    assert by_scene == {s: 21 + (s in SCENES[:5]) for s in SCENES}
    assert [r["achieved"] for r in report["bin_totals"]] == [90, 80, 75, 75]
    assert all(r["achieved"] >= 1 for r in report["videos"])


def test_quota_prefers_the_seeded_order_within_what_is_feasible():
    # Without duration targets or coverage the choice per scene is simply the lowest ranks.
    rows = population(n=300)
    design = parse_design("quota", {"scene_quota": 2, "cover_videos": False})
    chosen = set(select(design, rows, seed=5).sample_ids)
    from studio.canonical import seeded_rank

    for scene in SCENES:
        ranked = sorted(
            (r for r in rows if r.scene == scene), key=lambda r: seeded_rank(5, r.sample_id)
        )
        assert {r.sample_id for r in ranked[:2]} <= chosen


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {"scene_quota": 21, "scene_extra": SCENES[:5], "bin_targets": [90, 80, 75, 70]},
            "duration targets add up to 315 steps but the scene quotas add up to 320",
        ),
        ({"scene_quota": 1}, "source videos but a quota of 1, so not every video can be covered"),
        ({"scene_quota": 500}, "fewer than its quota of 500"),
        ({"scene_quota": 21, "scene_extra": ["indoor/nowhere"]}, "Scene indoor/nowhere"),
        (
            {"scene_quotas": dict.fromkeys(SCENES[1:], 2), "cover_videos": False},
            "Scene indoor/s00 has steps in the release but no quota",
        ),
        ({"scene_quota": 70, "bin_targets": [1050, 0, 0, 0]}, "fewer than its target of 1050"),
    ],
    ids=["sums", "coverage", "scene-short", "unknown-scene", "missing-quota", "bin-short"],
)
def test_infeasible_quota_design_names_the_constraint(params, message):
    with pytest.raises(Infeasible, match=message):
        select(parse_design("quota", params), population(), seed=1)


def test_quota_joint_infeasibility_names_short_scenes_and_bins():
    # Scene a has only long steps, scene b only short ones: quotas and targets clash.
    rows = [Candidate(f"a{i}", "indoor/a", "va", 0, 1, 5 * S) for i in range(5)]
    rows += [Candidate(f"b{i}", "indoor/b", "vb", 0, 1, S // 2) for i in range(5)]
    design = parse_design("quota", {"scene_quota": 3, "bin_targets": [4, 0, 0, 2]})
    with pytest.raises(
        Infeasible, match=r"at most 5 of 6 steps fit.*indoor/a \(2 of 3\).*<1 s \(3 of 4\)"
    ):
        select(design, rows, seed=1)


def test_quota_video_coverage_failure_is_named():
    # Video vb's only step is long, but every step must be short: it cannot be covered.
    rows = [Candidate(f"a{i}", "indoor/a", "va", 0, 1, S // 2) for i in range(5)]
    rows.append(Candidate("b0", "indoor/a", "vb", 0, 1, 5 * S))
    design = parse_design("quota", {"scene_quota": 3, "bin_targets": [3, 0, 0, 0]})
    with pytest.raises(Infeasible, match="Source video vb"):
        select(design, rows, seed=1)


def test_bad_parameters_are_refused_by_validation():
    for params in (
        {"target_n": 0},
        {"target_n": 5, "bin_edges_us": [2, 1]},
        {"target_n": 5, "strata": ["scene"], "cover": ["video"]},
        {"target_n": 5, "unknown": 1},
        {"target_n": 5, "bin_edges_us": [1.5]},
    ):
        with pytest.raises(pydantic.ValidationError):
            parse_design("stratified", params)
    with pytest.raises(pydantic.ValidationError):
        parse_design("quota", {"scene_quota": 2, "scene_quotas": {"indoor/a": 1}})


def test_stratified_target_beyond_population_or_below_coverage_fails():
    rows = population(n=100)
    with pytest.raises(Infeasible, match="exceeds the 100 steps"):
        select(parse_design("stratified", {"target_n": 101}), rows, seed=1)
    with pytest.raises(Infeasible, match="below the"):
        select(parse_design("stratified", {"target_n": 5}), rows, seed=1)


def test_complete_groups_are_whole_and_drawn_without_replacement():
    groups = {f"g{i}": [f"g{i}-q{j}" for j in range(i % 4 + 1)] for i in range(20)}
    drawn = sample_groups(groups, n_groups=6, seed=20260921)
    assert len(drawn) == len(set(drawn)) == 6
    assert drawn == sample_groups(dict(reversed(groups.items())), n_groups=6, seed=20260921)
    assert drawn != sample_groups(groups, n_groups=6, seed=1)
    rows = population(n=500)
    selection = select(parse_design("complete_groups", {"n_groups": 4}), rows, seed=2)
    videos = set(selection.groups.values())
    assert len(videos) == 4
    assert set(selection.sample_ids) == {r.sample_id for r in rows if r.video in videos}
    with pytest.raises(Infeasible, match="exceeds the 20 groups"):
        sample_groups(groups, n_groups=21, seed=1)

"""The audit's pure parts: resolution of (item, criterion) and the report's numbers, checked
against values computed by hand here (Wilson written out, κ against the statistics engine)."""

from __future__ import annotations

import csv
import io
import math

import pytest

from review.audit.criteria import (
    CRITERIA,
    CRITERION_IDS,
    DEFAULT_ERROR_CODES,
    criteria_of_phase,
    error_taxonomy,
)
from review.audit.report import ReportItem, audit_report, report_csv
from review.audit.resolution import NEEDS_ADJUDICATION, PENDING, RESOLVED, majority, resolve
from scoring.stats import fleiss_kappa

V, I, U = "valid", "invalid", "uncertain"  # noqa: E741


def test_the_phases_split_the_seven_criteria_as_documented():
    assert [c.id for c in criteria_of_phase(1)] == ["C1", "C2", "C4", "C5", "C6"]
    assert [c.id for c in criteria_of_phase(2)] == ["C3", "C7"]
    assert CRITERION_IDS == ("C1", "C2", "C3", "C4", "C5", "C6", "C7")


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ([V, V, V], V),
        ([V, V, I], V),
        ([I, I, U], I),
        ([V, V, U], V),
        ([V, I, U], None),
        ([U, U, V], None),
        ([U, U, U], None),
        ([V, V, I, I], None),
    ],
)
def test_majority_needs_two_agreeing_on_valid_or_invalid(labels, expected):
    assert majority(labels) == expected


def test_a_three_way_split_goes_to_adjudication_and_the_adjudicator_resolves_it():
    assert resolve([V, I, U], required=3).state == NEEDS_ADJUDICATION
    assert resolve([U, U, I], required=3).state == NEEDS_ADJUDICATION
    done = resolve([V, I, U], required=3, adjudication=I)
    assert (done.state, done.label, done.by) == (RESOLVED, I, "adjudication")
    assert not done.is_valid


def test_an_incomplete_item_without_majority_is_pending_not_adjudicated():
    assert resolve([V, I], required=3).state == PENDING
    assert resolve([V, V], required=3).label == V  # two agreeing already settle it


def test_a_majority_wins_over_an_adjudication_and_uncertain_is_no_adjudication():
    assert resolve([V, V, I], required=3, adjudication=I).by == "majority"
    with pytest.raises(ValueError, match="valid or invalid"):
        resolve([V, I, U], required=3, adjudication=U)
    with pytest.raises(ValueError, match="unknown label"):
        majority(["maybe"])


def test_campaign_error_codes_extend_the_default_taxonomy_and_are_checked():
    codes = [e.code for e in error_taxonomy([{"code": "wrong_object", "name": "Wrong object"}])]
    assert codes == [*DEFAULT_ERROR_CODES, "wrong_object"]
    for bad in ([{"code": "other", "name": "x"}], [{"code": "Bad Code", "name": "x"}], ["x"]):
        with pytest.raises(ValueError):
            error_taxonomy(bad)


def _all(label, n=3):
    return [label] * n


def fixture_items() -> list[ReportItem]:
    """Six items, three reviewers. C1 varies, C7 has one unanimous invalid, the rest pass."""
    c1 = [[V, V, V], [V, V, I], [V, I, U], [I, I, V], [U, U, V], [V, V, V]]
    scenes = ["indoor/kitchen"] * 3 + ["outdoor/yard"] * 3
    bins = [0, 1, 1, 2, 0, 1]
    items = []
    for row in range(6):
        labels = {cid: _all(V) for cid in CRITERION_IDS}
        labels["C1"] = c1[row]
        codes = {}
        if row == 1:
            codes["C1"] = ["local_inaccurate"]  # given on an Invalid that lost the majority
        if row == 3:
            labels["C7"] = _all(I)
            codes = {
                "C1": ["multi_goal_step"],
                "C7": ["next_not_immediate", "missing_plausible_next"],
            }
        items.append(
            ReportItem(
                key=f"s{row}",
                scene=scenes[row],
                duration_bin=bins[row],
                labels=labels,
                adjudications={"C1": V} if row == 2 else {},
                error_codes=codes,
                corrections={3: ["split_step", "revise_next"], 0: []}.get(row, []),
            )
        )
    return items


def wilson_by_hand(x: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = x / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)


def test_the_report_on_a_fixture_equals_the_numbers_computed_by_hand():
    report = audit_report(
        fixture_items(),
        required=3,
        header={"campaign": "audit-x"},
        bin_labels=["<1 s", "1-2 s", "2-4 s", "≥4 s"],
        release_scenes={"indoor/kitchen": 10, "outdoor/yard": 7, "indoor/garage": 2},
        release_bins={0: 5, 1: 6, 2: 4, 3: 4},
    )
    by_id = {c["id"]: c for c in report["criteria"]}
    c1 = by_id["C1"]
    # Items 1, 2, 6 by majority, item 3 by adjudication; item 4 invalid; item 5 unresolved.
    assert (c1["valid"], c1["invalid"], c1["unresolved"], c1["n"]) == (4, 1, 1, 6)
    assert c1["rate"] == 4 / 6
    low, high = wilson_by_hand(4, 6)
    assert abs(c1["wilson"][0] - low) < 1e-9 and abs(c1["wilson"][1] - high) < 1e-9
    assert (c1["uncertain"], c1["uncertain_labels"], c1["adjudicated"]) == (1, 3, 1)
    assert c1["needs_adjudication"] == 1
    # Agreeing pairs per item: 3, 1, 0, 1, 1, 3 of 3.
    assert c1["raw_agreement"] == pytest.approx((1 + 1 / 3 + 0 + 1 / 3 + 1 / 3 + 1) / 6, abs=1e-12)
    # Category shares 11/18, 4/18, 3/18; P_bar = 1/2.
    p_e = (11**2 + 4**2 + 3**2) / 18**2
    assert c1["fleiss_kappa"] == pytest.approx((0.5 - p_e) / (1 - p_e), abs=1e-12)
    table = [[3, 0, 0], [2, 1, 0], [1, 1, 1], [1, 2, 0], [1, 0, 2], [3, 0, 0]]
    assert c1["fleiss_kappa"] == pytest.approx(fleiss_kappa(table), abs=1e-12)

    c2, c7 = by_id["C2"], by_id["C7"]
    assert c2["valid"] == 6 and c2["wilson"][1] == 1.0 and c2["fleiss_kappa"] is None
    assert (c7["valid"], c7["invalid"], c7["fleiss_kappa"], c7["raw_agreement"]) == (5, 1, 1.0, 1.0)

    macro = report["macro"]
    assert macro["excluded"] == ["C2", "C3", "C4", "C5", "C6"]
    assert macro["raw_agreement"] == pytest.approx((c1["raw_agreement"] + 1.0) / 2, abs=1e-12)
    assert macro["fleiss_kappa"] == pytest.approx((c1["fleiss_kappa"] + 1.0) / 2, abs=1e-12)

    overall = report["overall"]
    assert (overall["valid"], overall["invalid"], overall["unresolved"]) == (3 + 1, 1, 1)
    low, high = wilson_by_hand(4, 6)
    assert abs(overall["wilson"][0] - low) < 1e-9 and abs(overall["wilson"][1] - high) < 1e-9

    errors = report["errors"]
    assert set(errors) == set(DEFAULT_ERROR_CODES)
    assert errors["multi_goal_step"] == errors["next_not_immediate"] == 1
    assert errors["missing_plausible_next"] == 1
    assert errors["local_inaccurate"] == 0  # its Invalid lost the majority

    corrections = report["corrections"]
    assert corrections["split_step"] == corrections["revise_next"] == 1
    assert corrections["move_cutoff"] == 0
    assert (corrections["at_least_one"], corrections["deleted_steps"]) == (1, 0)

    scenes = {s["scene"]: s for s in report["coverage"]["scenes"]}
    assert scenes["indoor/kitchen"] == {
        "scene": "indoor/kitchen",
        "release_n": 10,
        "audit_n": 3,
        "overall_valid": 3,
    }
    assert scenes["indoor/garage"]["audit_n"] == 0  # a scene the audit missed shows as 0
    bins = {b["bin"]: b for b in report["coverage"]["duration_bins"]}
    assert (bins[1]["label"], bins[1]["audit_n"], bins[1]["overall_valid"]) == ("1-2 s", 3, 3)
    assert bins[3]["audit_n"] == 0
    assert report["campaign"] == "audit-x" and report["reviewers_per_item"] == 3


def test_the_paper_table_8_wilson_bounds_come_out():
    # 724 / 756 → [94.09 %, 96.99 %] and 746 / 756 → [97.58 %, 99.28 %] (table 8).
    items = []
    for row in range(756):
        labels = {cid: _all(V) for cid in CRITERION_IDS}
        if row < 10:
            labels["C1"] = _all(I)
        if 10 <= row < 32:
            labels["C7"] = _all(I)
        items.append(ReportItem(key=str(row), scene="s", duration_bin=0, labels=labels))
    report = audit_report(items, required=3)
    low, high = report["overall"]["wilson"]
    assert (round(low * 100, 2), round(high * 100, 2)) == (94.09, 96.99)
    c1 = report["criteria"][0]
    assert (round(c1["wilson"][0] * 100, 2), round(c1["wilson"][1] * 100, 2)) == (97.58, 99.28)


def test_an_empty_campaign_reports_nulls_not_errors():
    report = audit_report([], required=3)
    assert report["overall"] == {
        "valid": 0,
        "invalid": 0,
        "unresolved": 0,
        "n": 0,
        "rate": None,
        "wilson": [None, None],
    }
    assert all(c["fleiss_kappa"] is None for c in report["criteria"])
    assert report["macro"]["raw_agreement"] is None


def test_the_csv_holds_every_section_unrounded():
    report = audit_report(fixture_items(), required=3)
    rows = list(csv.DictReader(io.StringIO(report_csv(report))))
    sections = {r["section"] for r in rows}
    assert sections >= {"criterion", "overall", "macro", "error", "correction", "scene"}
    c1 = next(r for r in rows if r["id"] == "C1")
    assert float(c1["fleiss_kappa"]) == report["criteria"][0]["fleiss_kappa"]
    assert len([r for r in rows if r["section"] == "criterion"]) == len(CRITERIA)

"""The boundary audit's pure rules: the seeded window order, the payload rules, resolution into
the four-way set, and the report (table 32's shape) against hand computations."""

from __future__ import annotations

import hashlib
import uuid

import pytest
from django.core.exceptions import ValidationError

from review.boundary.kind import clean_answers
from review.boundary.report import BoundaryItem, boundary_report, report_csv
from review.boundary.windows import WINDOW_NAMES, WINDOWS, window_key, window_order

SAMPLE = uuid.UUID("12345678-1234-5678-1234-567812345678")
ALL = list(WINDOW_NAMES)


def test_the_worded_windows_are_the_ones_an_adjudication_knows_in_order():
    assert (
        tuple(w.name for w in WINDOWS)
        == WINDOW_NAMES
        == (
            "early",
            "official",
            "outcome_visible",
            "next_visible",
        )
    )


def test_window_order_is_the_documented_hash_and_differs_per_person():
    order = window_order(3, SAMPLE, 11)
    assert sorted(order) == sorted(WINDOW_NAMES)
    expected = sorted(
        WINDOW_NAMES,
        key=lambda w: hashlib.sha256(f"3:{SAMPLE}:11:{w}".encode()).hexdigest(),
    )
    assert order == expected
    assert window_key(3, str(SAMPLE).upper(), 11, "early") == window_key(3, SAMPLE, 11, "early")
    orders = {tuple(window_order(person, SAMPLE, 11)) for person in range(1, 30)}
    assert len(orders) > 5  # not one fixed order
    assert window_order(3, SAMPLE, 11) == order  # and recomputable


def test_a_submission_rules_exactly_the_items_windows():
    full = {"windows": {w: {"label": "valid"} for w in ALL}}
    cleaned = clean_answers(payload=full, windows=ALL, complete=True)
    assert cleaned["windows"]["early"] == {"label": "valid", "comment": ""}
    with pytest.raises(ValidationError) as missing:
        clean_answers(
            payload={"windows": {"early": {"label": "valid"}}}, windows=ALL, complete=True
        )
    assert set(missing.value.error_dict) == {"official", "outcome_visible", "next_visible"}
    with pytest.raises(ValidationError) as extra:
        clean_answers(payload=full, windows=ALL[:3], complete=True)
    assert "next_visible" in extra.value.error_dict
    bad = {"windows": {**full["windows"], "early": {"label": "maybe", "error_types": ["x"]}}}
    with pytest.raises(ValidationError) as label:
        clean_answers(payload=bad, windows=ALL, complete=True)
    assert len(label.value.error_dict["early"][0].messages) >= 1
    # A draft may be partial (and keeps what was typed as it is).
    draft = clean_answers(
        payload={"windows": {"early": {"comment": " so far"}}}, windows=ALL, complete=False
    )
    assert draft == {"windows": {"early": {"label": "", "comment": " so far"}}}
    with pytest.raises(ValidationError):
        clean_answers(payload={"criteria": {}}, windows=ALL, complete=True)


def _item(key, bin_, labels, adjudications=None, windows=ALL):
    return BoundaryItem(key, bin_, windows, labels, adjudications or {})


V, X, U = "valid", "invalid", "uncertain"


def test_the_report_equals_a_hand_computation():
    items = [
        # all four valid by majority
        _item("a", 0, {w: [V, V, X] for w in ALL}),
        # official valid, early invalid: not four-way valid
        _item("b", 0, {**{w: [V, V, V] for w in ALL}, "early": [X, X, V]}),
        # a split on next_visible, adjudicated valid: four-way valid
        _item(
            "c", 1, {**{w: [V, V, V] for w in ALL}, "next_visible": [V, X, U]}, {"next_visible": V}
        ),
        # a split on official waiting for adjudication: unresolved
        _item("d", 1, {**{w: [V, V, V] for w in ALL}, "official": [U, U, V]}),
        # the last step: no Next visible window, never four-way valid
        _item("e", 2, {w: [V, V, V] for w in ALL[:3]}, windows=ALL[:3]),
    ]
    report = boundary_report(items, required=3, bin_labels=["<1 s", "1-2 s", "2-4 s", "≥4 s"])
    windows = {w["window"]: w for w in report["windows"]}
    assert report["sets"] == {
        "audited": 5,
        "official_valid": 4,
        "four_way_valid": 2,
        "four_way_valid_complete_predictions": None,
    }
    assert report["official"]["valid"] == 4 and report["official"]["unresolved"] == 1
    assert report["official"]["rate"] == pytest.approx(4 / 5)
    assert windows["early"]["valid"] == 4 and windows["early"]["invalid"] == 1
    nv = windows["next_visible"]
    assert (nv["n"], nv["valid"], nv["unavailable"], nv["adjudicated"]) == (4, 4, 1, 1)
    assert windows["official"]["needs_adjudication"] == 1 and windows["official"]["uncertain"] == 1
    # e lacks a window: invalid; d is unresolved
    assert report["four_way"] == {**report["four_way"], "valid": 2, "invalid": 2, "unresolved": 1}
    bins = {b["label"]: b for b in report["duration_bins"]}
    assert (bins["<1 s"]["audited"], bins["<1 s"]["four_way_valid"]) == (2, 1)
    assert (bins["1-2 s"]["audited"], bins["1-2 s"]["four_way_valid"]) == (2, 1)
    assert bins["1-2 s"]["four_way_rate"] == pytest.approx(0.5)
    assert bins["1-2 s"]["official_valid"] == 1
    assert bins["≥4 s"]["audited"] == 0 and bins["≥4 s"]["four_way_rate"] is None
    # Wilson with z = 1.96 for 2 of 5 (by hand)
    z, n, p = 1.96, 5, 2 / 5
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5
    assert report["four_way"]["wilson"] == pytest.approx([centre - half, centre + half])
    # raw agreement of early over five items: pairs agreeing / 3 per item
    # a: V V I -> 1/3; b: I I V -> 1/3; c, d, e: all V -> 1
    assert windows["early"]["raw_agreement"] == pytest.approx((1 / 3 + 1 / 3 + 3) / 5)
    text = report_csv(report)
    assert text.splitlines()[0].startswith("section,key,name")
    assert "four_way,all,Four-way valid,5,2,2,1" in text
    assert "set,four_way_valid,,2" in text


def test_unknown_labels_are_refused():
    with pytest.raises(ValueError):
        boundary_report([_item("a", 0, {"early": ["maybe"]})], required=3)


def test_review_imports_nothing_of_scoring_but_its_statistics():
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "review"
    found = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                if name.split(".")[0] == "scoring" and not name.startswith("scoring.stats"):
                    found.append(f"{path.relative_to(root.parent)}: {name}")
    assert found == []

"""Shared helpers for the statistics-engine tests (no Django needed)."""

import math

import pytest

TOLERANCE = 1e-9


def _assert_close(ours, ref, context="", tol=TOLERANCE):
    """Both nan, or equal within ``tol`` (absolute)."""
    ours, ref = float(ours), float(ref)
    if math.isnan(ref) or math.isnan(ours):
        assert math.isnan(ref) and math.isnan(ours), f"{context}: ours={ours!r} ref={ref!r}"
        return
    assert abs(ours - ref) <= tol, f"{context}: ours={ours!r} ref={ref!r} diff={ours - ref:.3g}"


@pytest.fixture
def assert_close():
    return _assert_close

"""How report pages and charts show a statistic: two decimals, no signed zero, and an interval
marked as excluding 0 only when the shown bounds do (one rule for tables and charts)."""

from __future__ import annotations

DIGITS = 2  # every statistic on the report pages is shown to two decimals


def fmt(x, signed=False) -> str:
    if x is None:
        return "—"
    x = round(x, DIGITS) + 0.0  # a value that rounds to zero is 0.00, never -0.00 or +0.00
    if signed and x == 0:
        return f"{0:.{DIGITS}f}"
    return f"{x:+.{DIGITS}f}" if signed else f"{x:.{DIGITS}f}"


def excludes_zero(low, high) -> bool:
    """Whether the interval, as the page shows it, lies clear of 0: ``[-2.44, -0.00]`` touches 0
    and is not marked (the JSON keeps the exact flag of the unrounded bounds)."""
    if low is None or high is None:
        return False
    return round(low, DIGITS) > 0 or round(high, DIGITS) < 0

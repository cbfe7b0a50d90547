"""Input validation shared by the statistics modules (private).

Every public function converts its inputs through these helpers so that malformed input fails
early with a ``ValueError`` that names the argument, instead of deep inside numpy.
"""

from __future__ import annotations

import numpy as np


def as_float_array(x, name: str, ndim: int | None = None) -> np.ndarray:
    """Return ``x`` as a float64 array, raising ``ValueError`` if it is not numeric."""
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric: {exc}") from None
    if ndim is not None and arr.ndim != ndim:
        shape = "1-D" if ndim == 1 else f"{ndim}-D"
        raise ValueError(f"{name} must be {shape}, got shape {arr.shape}")
    return arr


def as_counts(x, name: str, ndim: int) -> np.ndarray:
    """Return non-negative, finite, integer-valued counts as a float64 array."""
    arr = as_float_array(x, name, ndim)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must contain only finite counts")
    if (arr < 0).any():
        raise ValueError(f"{name} must not contain negative counts")
    if (arr != np.floor(arr)).any():
        raise ValueError(f"{name} must contain whole-number counts")
    return arr


def as_labels(x, name: str, n: int) -> np.ndarray:
    """Return a 1-D label array of length ``n`` (any sortable dtype)."""
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"{name} has length {arr.shape[0]}, expected {n}")
    if arr.dtype == object:
        try:
            np.unique(arr)
        except TypeError as exc:
            raise ValueError(f"{name} labels must be mutually comparable: {exc}") from None
    return arr


def confidence_level(confidence: float) -> float:
    c = float(confidence)
    if not 0.0 < c < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    return c


def positive_int(value, name: str) -> int:
    if isinstance(value, bool) or int(value) != value or int(value) < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)

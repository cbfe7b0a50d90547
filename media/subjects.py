"""Names for render subjects. Media knows a batch item's subject only as the caller's reference
(``"step <uid>"``); the app that made it registers a namer so the admin can say which step it is
("Step 3 of kitchen-tea.mp4") without media importing that app."""

from __future__ import annotations

from collections.abc import Callable, Iterable

Namer = Callable[[list[str]], dict[str, str]]
_NAMERS: list[Namer] = []


def subject_namer(fn: Namer) -> Namer:
    """Register ``fn(subjects) -> {subject: name}`` for the subjects it knows."""
    if fn not in _NAMERS:
        _NAMERS.append(fn)
    return fn


def subject_names(subjects: Iterable[str]) -> dict[str, str]:
    """A name for every subject some app knows; the others are left out."""
    wanted = sorted(set(subjects))
    names: dict[str, str] = {}
    for namer in _NAMERS:
        names.update(namer([s for s in wanted if s not in names]))
    return names

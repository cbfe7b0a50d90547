"""Hooks through which a higher layer keeps step labels from people who must not see them yet,
and learns which labels the workspace showed to whom.

Review's exposure rule (``review.campaigns.exposure``: nobody sees the references of a step they
still answer blind) registers both at start-up, so annotation never imports review. The read
scope of the workspace (``annotation.selectors.videos_for``) leaves out the videos a hook
withholds; the workspace's answers that carry labels report the steps they showed. With nothing
registered nothing is withheld and nothing is reported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

_WITHHOLD: list[Callable[[object], Iterable[int]]] = []
_SHOWN: list[Callable[[object, list], None]] = []


def visibility_register(
    *, withheld: Callable[[object], Iterable[int]], shown: Callable[[object, list], None]
) -> None:
    """``withheld(user)`` gives the ids of videos the user may not open now; ``shown(user,
    steps)`` learns that the user was shown these steps' labels. Registering again the same
    functions changes nothing."""
    if withheld not in _WITHHOLD:
        _WITHHOLD.append(withheld)
    if shown not in _SHOWN:
        _SHOWN.append(shown)


def withheld_video_ids(user) -> set[int]:
    if not getattr(user, "is_authenticated", False):
        return set()
    return {video_id for hook in _WITHHOLD for video_id in hook(user)}


def labels_shown(user, steps) -> None:
    steps = list(steps)
    if steps and getattr(user, "is_authenticated", False):
        for hook in _SHOWN:
            hook(user, steps)

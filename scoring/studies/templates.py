"""The paper's three controlled studies as templates: conditions, contrasts and common set.

A contrast ``{"name", "a", "b"}`` is ``a - b`` per step (eq. 45); with ``"dimensions": [x, y]``
it is the gain test ``(a - b)[x] - (a - b)[y]`` of table 2B."""

from __future__ import annotations

TEMPLATES: dict[str, dict] = {
    # Appendix E: eqs. 28-30 and table 2B; everything on the steps complete under all four
    # windows (the paper's 508).
    "boundary": {
        "conditions": ["early", "official", "outcome_visible", "next_visible"],
        "common_set": "study",
        "contrasts": [
            {"name": "early to official", "a": "official", "b": "early"},
            {"name": "outcome", "a": "outcome_visible", "b": "official"},
            {"name": "future", "a": "next_visible", "b": "official"},
            {
                "name": "outcome: L-P",
                "a": "outcome_visible",
                "b": "official",
                "dimensions": ["local", "procedural"],
            },
            {
                "name": "outcome: L-N",
                "a": "outcome_visible",
                "b": "official",
                "dimensions": ["local", "next"],
            },
            {
                "name": "future: N-L",
                "a": "next_visible",
                "b": "official",
                "dimensions": ["next", "local"],
            },
            {
                "name": "future: N-P",
                "a": "next_visible",
                "b": "official",
                "dimensions": ["next", "procedural"],
            },
        ],
    },
    # Appendix F: eqs. 32-34, each on the common set of its two conditions.
    "evidence": {
        "conditions": [
            "ordered",
            "shuffled",
            "last_frame",
            "first_frame",
            "scene_only",
            "prompt_only",
        ],
        "common_set": "pair",
        "contrasts": [
            {"name": "temporal", "a": "ordered", "b": "shuffled"},
            {"name": "motion", "a": "ordered", "b": "last_frame"},
            {"name": "visual evidence", "a": "ordered", "b": "scene_only"},
        ],
    },
    # Appendix G: eqs. 35-37.
    "history": {
        "conditions": ["step_only", "history_5s", "history_15s", "previous_step"],
        "common_set": "pair",
        "contrasts": [
            {"name": "Δ5s", "a": "history_5s", "b": "step_only"},
            {"name": "Δ15s", "a": "history_15s", "b": "step_only"},
            {"name": "Δprev", "a": "previous_step", "b": "step_only"},
        ],
    },
}

DIMENSIONS = ("local", "procedural", "next")
COMPOSITE = ("overall", DIMENSIONS)

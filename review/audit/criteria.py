"""The audit's fixed vocabulary: the seven criteria (paper table 7), the two phases they are
judged in, the three labels, the default error taxonomy (appendix B.4) and the correction types
(table 9). Plain data, no Django: the report, the pages, the import and the docs read it here."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from studio.vocabulary import vocabulary

VALID = "valid"
INVALID = "invalid"
UNCERTAIN = "uncertain"
LABELS = (VALID, INVALID, UNCERTAIN)
LABELS_VOCABULARY = vocabulary(
    "audit_label", {VALID: "Valid", INVALID: "Invalid", UNCERTAIN: "Uncertain"}, title="Label"
)
# An adjudicator decides; "uncertain" is not an answer there.
ADJUDICATION_LABELS = (VALID, INVALID)

PHASE_OBSERVATION = 1  # the Official clip with Local and Procedural intent
PHASE_CONTEXT = 2  # the surrounding source context with Next and the plausible list
PHASES = (PHASE_OBSERVATION, PHASE_CONTEXT)


@dataclass(frozen=True)
class Criterion:
    id: str
    name: str
    requirement: str  # what "valid" means, in the reviewer's words
    phase: int


CRITERIA: tuple[Criterion, ...] = (
    Criterion("C1", "Step coherence", "The step pursues one coherent immediate goal.", 1),
    Criterion("C2", "Duration limit", "The step lasts no longer than 10 seconds.", 1),
    Criterion(
        "C3",
        "Pre-outcome boundary",
        "The observation stops before the decisive outcome can be seen.",
        2,
    ),
    Criterion(
        "C4", "Local validity", "Local intent matches the visible action and object state.", 1
    ),
    Criterion(
        "C5",
        "Procedural validity",
        "Procedural intent says correctly what the local goal is for in the larger task.",
        1,
    ),
    Criterion(
        "C6",
        "Hierarchical distinction",
        "Local and procedural intent sit at clearly different levels of abstraction.",
        1,
    ),
    Criterion(
        "C7", "Next plan validity", "Next step names an action that directly follows this one.", 2
    ),
)
CRITERION_IDS = tuple(c.id for c in CRITERIA)
BY_ID: dict[str, Criterion] = {c.id: c for c in CRITERIA}
# The id stays in the label: reviewers, the docs and the paper call the criteria C1-C7.
CRITERIA_VOCABULARY = vocabulary(
    "criterion", {c.id: f"{c.id} {c.name}" for c in CRITERIA}, title="Criterion"
)

# What the boundary audit rules on instead of criteria (review.boundary.windows words them for
# people, in this order): an adjudication is keyed by a criterion or one of these windows.
WINDOW_NAMES: tuple[str, ...] = ("early", "official", "outcome_visible", "next_visible")


def criteria_of_phase(phase: int) -> tuple[Criterion, ...]:
    return tuple(c for c in CRITERIA if c.phase == phase)


@dataclass(frozen=True)
class ErrorType:
    code: str
    name: str
    # The criteria an Invalid of which may carry it; empty: any criterion ("other").
    criteria: tuple[str, ...] = ()

    def fits(self, criterion: str) -> bool:
        return not self.criteria or criterion in self.criteria


# The default taxonomy; a campaign may add codes of its own (``error_taxonomy``).
DEFAULT_ERROR_TYPES: tuple[ErrorType, ...] = (
    ErrorType("next_not_immediate", "Next step is not the immediate continuation", ("C7",)),
    ErrorType("local_procedural_overlap", "Local and procedural intent say the same", ("C6",)),
    ErrorType("procedural_inaccurate", "Procedural intent is inaccurate", ("C5",)),
    ErrorType("local_inaccurate", "Local intent is inaccurate", ("C4",)),
    ErrorType("outcome_visible", "The observation already shows the outcome", ("C3",)),
    ErrorType("missing_plausible_next", "A plausible next action is missing", ("C7",)),
    ErrorType("multi_goal_step", "The step holds more than one goal", ("C1",)),
    ErrorType("too_long", "The step lasts more than 10 seconds", ("C2",)),
    ErrorType("other", "Other (say what in the comment)"),
)
DEFAULT_ERROR_CODES = tuple(e.code for e in DEFAULT_ERROR_TYPES)
ERROR_TYPES_VOCABULARY = vocabulary(
    "error_type", {e.code: e.name for e in DEFAULT_ERROR_TYPES}, title="Error type"
)
CODE_PATTERN = r"^[a-z][a-z0-9_]{1,39}$"


def error_taxonomy(extra: Iterable[Mapping] | None = None) -> tuple[ErrorType, ...]:
    """The default error types followed by a campaign's own (``[{"code", "name", "criteria"?}]``;
    without ``criteria`` a campaign's type fits every criterion).

    Raises ValueError for a malformed or repeated code or an unknown criterion, so a campaign
    cannot be created with one.
    """
    import re

    types = list(DEFAULT_ERROR_TYPES)
    seen = set(DEFAULT_ERROR_CODES)
    for entry in extra or ():
        if not isinstance(entry, Mapping):
            raise ValueError("each extra error type is an object with a code and a name")
        code, name = entry.get("code"), entry.get("name") or entry.get("code")
        if not isinstance(code, str) or not re.match(CODE_PATTERN, code):
            raise ValueError(
                f"error code {code!r}: use 2-40 lower-case letters, digits and '_', "
                "starting with a letter"
            )
        if code in seen:
            raise ValueError(f"error code {code} is given twice")
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"error code {code} needs a name")
        criteria = entry.get("criteria") or ()
        if not isinstance(criteria, list | tuple) or any(c not in BY_ID for c in criteria):
            raise ValueError(f"error code {code}: criteria is a list of C1 … C7")
        seen.add(code)
        types.append(ErrorType(code, name.strip(), tuple(criteria)))
    return tuple(types)


def error_types_of(types: Iterable[ErrorType], criterion: str) -> tuple[ErrorType, ...]:
    """The error types an Invalid of ``criterion`` may carry, in the taxonomy's order."""
    return tuple(t for t in types if t.fits(criterion))


@dataclass(frozen=True)
class CorrectionType:
    code: str
    name: str  # as in table 9


CORRECTION_TYPES: tuple[CorrectionType, ...] = (
    CorrectionType("move_cutoff", "Move the observation cutoff"),
    CorrectionType("split_step", "Redefine a multi-goal micro-step"),
    CorrectionType("revise_local", "Revise Local Intent"),
    CorrectionType("revise_procedural", "Revise Procedural Intent"),
    CorrectionType("revise_next", "Revise Next Plan"),
    CorrectionType("add_plausible", "Add a plausible next action"),
)
CORRECTION_CODES = tuple(c.code for c in CORRECTION_TYPES)
# The report counts two more rows beside the types (review/audit/report.py).
CORRECTIONS_VOCABULARY = vocabulary(
    "correction_type",
    {
        **{c.code: c.name for c in CORRECTION_TYPES},
        "at_least_one": "Items with at least one correction",
        "deleted_steps": "Audited steps no longer active",
    },
    title="Correction",
)

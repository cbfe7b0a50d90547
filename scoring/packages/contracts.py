"""The output contract of each purpose: what a model must return, checked strictly.

Strict means: exactly the listed fields (no extras), JSON integers for scores (``"10"``, ``10.0``
and ``true`` are refused, never coerced), every value inside its scale. A reply that breaks any
rule is a parse failure; nothing is guessed from it, and nothing in it is altered: a reply
holding a value that cannot be stored (NUL, a lone surrogate; ``studio.text``) is a parse
failure too. The JSON schemas sent as ``response_format``
are generated from these models, so what is asked and what is checked cannot drift apart.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from studio.text import Mode, TextRefused, json_clean

Text = Annotated[StrictStr, Field(min_length=1, max_length=2000)]
Score100 = Annotated[StrictInt, Field(ge=0, le=100)]
Score4 = Annotated[StrictInt, Field(ge=0, le=4)]
Score5 = Annotated[StrictInt, Field(ge=0, le=5)]
MatchTypeName = Literal["observed", "plausible", "related", "none"]
# The blind rater's nine reason codes (one per dimension).
REASON_CODES = (
    "correct",
    "minor_omission",
    "too_vague",
    "wrong_action",
    "wrong_object",
    "wrong_goal",
    "wrong_temporal_relation",
    "unrelated",
    "other",
)
ReasonCode = Literal[REASON_CODES]
# Next-plan priority bands of the reference judge: match type -> inclusive score range.
NEXT_BANDS = {"observed": (70, 100), "plausible": (20, 69), "related": (1, 19), "none": (0, 0)}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Prediction(_Strict):
    local_intent: Text
    procedural_intent: Text
    next_step: Text


class ReferenceEvaluation(_Strict):
    candidate_id: StrictStr
    local_intent_score: Score100
    procedural_intent_score: Score100
    next_plan_score: Score100
    next_plan_match_type: MatchTypeName
    brief_reason: Annotated[StrictStr, Field(max_length=600)]


class ReferenceJudgement(_Strict):
    evaluations: list[ReferenceEvaluation]


class VideoEvaluation(_Strict):
    candidate_id: StrictStr
    gf: Score4
    hic: Score4
    tpc: Score4
    npf: Score4


class VideoJudgement(_Strict):
    evaluations: list[VideoEvaluation]


class RaterEvaluation(_Strict):
    blind_id: StrictStr
    local_score_0_100: Score100
    procedural_score_0_100: Score100
    next_plan_score_0_100: Score100
    local_reason_code: ReasonCode
    procedural_reason_code: ReasonCode
    next_plan_reason_code: ReasonCode
    brief_reason: Annotated[StrictStr, Field(max_length=800)]


class RaterJudgement(_Strict):
    evaluations: list[RaterEvaluation]


class QaJudgement(_Strict):
    correct: StrictBool
    score: Score5
    justification: Annotated[StrictStr, Field(max_length=800)]


# One turn of a QA dialogue: the answer text (for a multiple-choice turn, the option's letter).
# (A comment, not a docstring: a docstring would become the schema's description.)
class QaAnswer(_Strict):
    answer: Text


CONTRACTS: dict[str, type[_Strict]] = {
    "prediction": Prediction,
    "reference_judge": ReferenceJudgement,
    "video_judge": VideoJudgement,
    "blind_rater": RaterJudgement,
    "qa_judge": QaJudgement,
    "qa_prediction": QaAnswer,
}


def contract_schema(purpose: str) -> dict:
    """The JSON schema of a purpose's contract, as packages carry it."""
    return CONTRACTS[purpose].model_json_schema()


class ParseFailure(ValueError):
    """The reply is not exactly one object of the contract."""


def _json_text(content: str) -> str:
    text = content.strip()
    # One fenced block is the only wrapping tolerated: it is unambiguous.
    if text.startswith("```"):
        first, _, rest = text.partition("\n")
        if first.strip() not in ("```", "```json") or not rest.rstrip().endswith("```"):
            raise ParseFailure("the reply is a fenced block that is not one JSON object")
        text = rest.rstrip()[:-3].strip()
    return text


def parse_reply(purpose: str, content: str | None):
    """The contract object in ``content``, or ParseFailure naming what is wrong."""
    if content is None or not content.strip():
        raise ParseFailure("the reply is empty")
    try:
        data = json.loads(_json_text(content))
    except json.JSONDecodeError as exc:
        raise ParseFailure(f"the reply is not JSON: {exc.msg} at position {exc.pos}") from None
    except RecursionError:
        raise ParseFailure("the reply is JSON nested too deep") from None
    if not isinstance(data, dict):
        raise ParseFailure("the reply is JSON but not one object")
    try:
        # Text from outside (studio.text): a result is never silently altered, so a value that
        # cannot be stored as it is (NUL, a lone surrogate) makes the reply no result at all.
        json_clean(data, mode=Mode.REFUSE, where="reply")
    except TextRefused as exc:
        raise ParseFailure(f"{exc}; it cannot be stored") from None
    try:
        return CONTRACTS[purpose].model_validate(data, strict=True)
    except Exception as exc:  # pydantic.ValidationError: name the first problems
        errors = getattr(exc, "errors", None)
        if errors is None:
            raise
        parts = [
            f"{'.'.join(str(p) for p in e['loc']) or 'reply'}: {e['msg']}" for e in errors()[:5]
        ]
        raise ParseFailure("; ".join(parts)) from None

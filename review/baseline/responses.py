"""What a baseline rater answers for one item, and the rules it must follow.

A submitted response (the payload of the campaign submission) is either an answer::

    {"broken": false,
     "dimensions": {"local":      {"answerable": true,  "answers": ["…"], "confidence": 4},
                    "procedural": {"answerable": true,  "answers": ["…"], "confidence": 3},
                    "next":       {"answerable": false, "answers": [],    "confidence": 2}},
     "seconds": 41.2}

or a flag that the item is broken (its clip will not play), with an optional note and no
answers: ``{"broken": true, "note": "…", "seconds": 3.0}``. Local and Procedural take one text
when answerable, Next one to three (the first is the rater's main answer: the one the judge
scores); an unanswerable dimension takes no text. Every dimension of an answer carries a
confidence 1-5. ``seconds`` is measured by the server (first time the item was shown to the
submission), never taken from the page.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.core.exceptions import ValidationError

from annotation.models.steps import DIMENSIONS_VOCABULARY

DIMENSIONS = ("local", "procedural", "next")
DIMENSION_NAMES = {d: DIMENSIONS_VOCABULARY.label(d) for d in DIMENSIONS}
MAX_ANSWERS = {"local": 1, "procedural": 1, "next": 3}
CONFIDENCE = (1, 2, 3, 4, 5)
MAX_TEXT = 500
MAX_NOTE = 2000


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def clean_dimension(name: str, value, *, complete: bool, errors: dict) -> dict:
    """One dimension's cleaned answer; problems go to ``errors[name]``."""
    problems: list[str] = []
    if not isinstance(value, Mapping):
        errors[name] = ["Must be an object with answerable, answers and confidence."]
        return {}
    unknown = sorted(set(value) - {"answerable", "answers", "confidence"})
    if unknown:
        problems.append(f"Unknown field(s): {', '.join(map(str, unknown))}.")
    answerable = value.get("answerable")
    answers = value.get("answers", [])
    confidence = value.get("confidence")
    if answerable is not None and not isinstance(answerable, bool):
        problems.append("answerable is true or false.")
        answerable = None
    if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
        problems.append("answers is a list of texts.")
        answers = []
    if any(len(a) > MAX_TEXT for a in answers):
        problems.append(f"An answer has at most {MAX_TEXT} characters.")
    if confidence is not None and not (_is_int(confidence) and confidence in CONFIDENCE):
        problems.append("confidence is a whole number from 1 to 5.")
        confidence = None
    texts = [a.strip() for a in answers]
    if complete:
        texts = [t for t in texts if t]
        if answerable is None:
            problems.append("Say whether it can be answered.")
        elif answerable and not texts:
            problems.append("Write your answer, or mark it unanswerable.")
        elif answerable is False and texts:
            problems.append("An unanswerable dimension takes no answer.")
        if len(texts) > MAX_ANSWERS[name]:
            most = MAX_ANSWERS[name]
            problems.append(f"At most {most} answer{'s' if most > 1 else ''}.")
        if len({t.casefold() for t in texts}) != len(texts):
            problems.append("The same answer is given twice.")
        if confidence is None:
            problems.append("Choose a confidence from 1 to 5.")
    elif len(answers) > MAX_ANSWERS[name]:
        problems.append(f"At most {MAX_ANSWERS[name]} answers.")
    if problems:
        errors[name] = problems
    return {
        "answerable": answerable,
        "answers": texts if complete else list(answers),
        "confidence": confidence,
    }


def clean_response(payload, *, complete: bool) -> dict:
    """The cleaned response (``seconds`` not included); ValidationError naming every problem.
    ``complete=False`` checks a draft: types and limits only."""
    if not isinstance(payload, Mapping):
        raise ValidationError({"payload": "Send an object."})
    errors: dict[str, list[str]] = {}
    unknown = sorted(set(payload) - {"broken", "note", "dimensions"})
    if unknown:
        errors["payload"] = [f"Unknown field(s): {', '.join(map(str, unknown))}."]
    broken = payload.get("broken", False)
    if not isinstance(broken, bool):
        errors["broken"] = ["broken is true or false."]
        broken = False
    note = payload.get("note", "")
    if not isinstance(note, str) or len(note) > MAX_NOTE:
        errors["note"] = [f"A note is text of at most {MAX_NOTE} characters."]
        note = ""
    dimensions = payload.get("dimensions", {})
    if not isinstance(dimensions, Mapping):
        errors["dimensions"] = ["Send an object of dimensions."]
        dimensions = {}
    extra = sorted(set(dimensions) - set(DIMENSIONS))
    if extra:
        errors["dimensions"] = [f"Unknown dimension(s): {', '.join(map(str, extra))}."]
    if broken and complete:
        if errors:
            raise ValidationError(errors)
        return {"broken": True, "note": note.strip()}
    cleaned = {}
    for name in DIMENSIONS:
        if name not in dimensions:
            if complete:
                errors[name] = ["Answer this dimension."]
            continue
        cleaned[name] = clean_dimension(name, dimensions[name], complete=complete, errors=errors)
    if errors:
        raise ValidationError(errors)
    if not complete:
        return {"broken": broken, "note": note, "dimensions": cleaned}
    return {"broken": False, "dimensions": cleaned}

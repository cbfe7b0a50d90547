"""One turn of a QA dialogue as one call: what it sends and what its reply decides.

A QA run has one item per turn, keyed ``<group>:<turn>`` (the key is never sent). The first turn
of every group starts pending; each later turn waits (``ItemState.WAITING``) until the turn
before it is answered. A turn's request holds its media (``scoring.qa.runs``: the group's clip,
or the turn's own evidence window, with or without sound, or nothing) and the
dialogue so far: every earlier question and the model's own reply to it, exactly as the model
returned it, never a reference answer. Its data (and so its cache key) therefore holds the
earlier turns' exact texts. When a turn is answered, the same statement that stores its result
makes the next turn pending; when it fails, the same statement marks every later turn of the
group not asked (``ItemState.NOT_ASKED``).

Multiple-choice turns show their options under letters and are scored by exact match on the
chosen option (``chosen_option``): no judge. Open-ended turns are judged later by the QA judge
(``manage.py judge --kind qa --run NAME``).
"""

from __future__ import annotations

import json
import string

from scoring.models import ItemState, Outcome, Run, RunItem
from scoring.packages import render_dialogue
from scoring.qa.cutoffs import rendered_sound_check
from scoring.runs.execute import Request
from scoring.runs.media import media_payload
from studio.vocabulary import label

KIND = "qa_prediction"
LETTERS = string.ascii_uppercase


def turn_key(group_uid: str, position: int) -> str:
    """The item key of a group's turn (1-based in the key, as people count turns)."""
    return f"{group_uid}:{position + 1}"


def turn_document(number: int, question: str, options: list[str] | None) -> dict:
    """What a turn's question looks like to the model: its number in the dialogue, the question
    and, for a multiple-choice turn, its options under letters. Nothing else of the group."""
    document: dict = {"turn": number, "question": question}
    if options:
        document["options"] = {LETTERS[i]: text for i, text in enumerate(options)}
    return document


def chosen_option(answer: str, options: dict[str, str]) -> str | None:
    """The letter of the option an answer chooses: exactly a letter shown, or exactly one
    option's text (surrounding blanks aside); None when it chooses none."""
    text = answer.strip()
    if text in options:
        return text
    for letter, option in options.items():
        if text == option.strip():
            return letter
    return None


def reply_content(raw_response: str) -> str:
    """The text a model replied with, from the stored response of an ``ok`` item."""
    return json.loads(raw_response)["choices"][0]["message"]["content"]


def recording(payload) -> dict:
    """What came with the first question: ``{"kind": "images", "count": 16}``, with
    ``"sound": true`` when the window's sound came too; ``{"kind": "video"}`` (``"sound": true``
    for a clip with its track); ``{"kind": "sound"}``; ``{"kind": "none"}``."""
    return {"kind": "none"} if payload is None else payload.recording


class QaTurnHandler:
    """The call kind ``qa_prediction`` (registered from ``ScoringConfig.ready()``)."""

    purpose = KIND

    def prepare(self, run: Run, item: RunItem, *, record: bool = True) -> Request:
        earlier = []
        for data, outcome, raw in (
            RunItem.objects.filter(
                run_id=run.pk, sample_id=item.sample_id, position__lt=item.position
            )
            .order_by("position")
            .values_list("input", "outcome", "raw_response")
        ):
            if outcome != Outcome.OK:  # cannot happen: a later turn is pending only after ok
                raise OSError("an earlier turn of this dialogue has no answer")
            earlier.append((data, reply_content(raw)))
        return self.request(run, item, earlier, record=record)

    def request(self, run: Run, item: RunItem, earlier: list, *, record: bool = True) -> Request:
        """The call of ``item`` after the ``earlier`` turns of its dialogue: ``(document as
        sent, the model's reply)`` each, in order."""
        dialogue = [{**data, "reply": reply} for data, reply in earlier]
        payload = None
        if item.media_id is not None:
            payload = media_payload(item.media, interface=run.endpoint.media, record=record)
            if item.cutoff_us is not None:
                rendered_sound_check(item.media, item.cutoff_us)
        turn = dict(item.input)
        first = dialogue[0] if dialogue else turn
        first["recording"] = recording(payload)
        return Request({"dialogue": dialogue, "turn": turn}, payload, render=render_dialogue)

    def accept(self, run: Run, item: RunItem, reply) -> tuple[dict, list]:
        prediction: dict = {"answer": reply.answer}
        options = item.input.get("options")
        if options:
            prediction["chosen"] = chosen_option(reply.answer, options)
        following = {
            "run_id": run.pk,
            "sample_id": item.sample_id,
            "position": item.position + 1,
            "state": ItemState.WAITING,
        }
        return {"prediction": prediction}, [(RunItem, following, {"state": ItemState.PENDING})]

    def failed(self, run: Run, item: RunItem, outcome: str) -> list:
        why = f"not asked: turn {item.input.get('turn')} ended in {label('outcome', outcome)}"
        later = {"run_id": run.pk, "sample_id": item.sample_id, "state": ItemState.WAITING}
        return [(RunItem, later, {"state": ItemState.NOT_ASKED, "error": why})]

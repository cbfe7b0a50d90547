"""What a QA run's turns and dialogues came to (docs/qa-evaluation.md, "Outcomes of a dialogue").

A turn is ``ok`` (answered), ``parse_failure``, ``refusal`` or ``api_error`` (asked, no usable
answer), or not asked (an earlier turn of its dialogue failed). A multiple-choice turn that is
``ok`` is correct exactly when the option it chose is the reference answer (no judge); an
open-ended one waits for the QA judge. A dialogue is ``answered`` when every turn is ``ok``;
otherwise it failed, with the outcome of its first failed turn. Failed dialogues are execution
failures, counted apart from the answers ("errors and review cases separate"), never scored as
wrong answers here.
"""

from __future__ import annotations

from review.qa.models import QaTurn
from scoring.models import ItemState, Outcome, Run

ANSWERED = "answered"


def turn_rows(run: Run) -> list[dict]:
    """One row per turn, in dialogue order: its run item's id (``item``), group, turn, kind
    (``choice``/``open``), state, outcome, answer, chosen option and, for an answered
    multiple-choice turn, ``correct``."""
    source = run.manifest.qa_source
    references = {
        (str(uid), position): answer
        for uid, position, answer in QaTurn.objects.filter(
            group__group_set_id=source.group_set_id,
            group__uid__in=run.items.values("sample_id"),
        ).values_list("group__uid", "position", "answer")
    }
    rows = []
    for pk, key, state, outcome, data, prediction in (
        run.items.order_by("position")
        .values_list("pk", "key", "state", "outcome", "input", "prediction")
        .iterator(2000)
    ):
        group, _, turn = key.rpartition(":")
        options = data.get("options")
        row = {
            "item": pk,
            "group": group,
            "turn": int(turn),
            "kind": "choice" if options else "open",
            "state": state,
            "outcome": outcome or None,
            "answer": prediction["answer"] if prediction else None,
            "chosen": prediction.get("chosen") if prediction and options else None,
            "correct": None,
        }
        if options and outcome == Outcome.OK:
            chosen = row["chosen"]
            row["correct"] = chosen is not None and options[chosen] == references.get(
                (group, int(turn) - 1)
            )
        rows.append(row)
    return rows


def dialogue_outcomes(rows: list[dict]) -> dict[str, str]:
    """``{group: outcome}``: ``answered``, the first failed turn's outcome, or ``open`` while a
    turn is still to be asked."""
    outcomes: dict[str, str] = {}
    for row in rows:  # in dialogue order
        known = outcomes.get(row["group"], ANSWERED)
        if known != ANSWERED:
            continue
        if row["state"] in (ItemState.PENDING, ItemState.RUNNING, ItemState.WAITING):
            outcomes[row["group"]] = "open"
        elif row["outcome"] != Outcome.OK:
            outcomes[row["group"]] = row["outcome"] or "not_asked"
        else:
            outcomes[row["group"]] = ANSWERED
    return outcomes


def qa_run_summary(run: Run) -> dict:
    """Dialogues by outcome; multiple-choice turns answered and correct; open-ended turns
    answered (for the QA judge) and not asked."""
    rows = turn_rows(run)
    dialogues: dict[str, int] = {}
    for outcome in dialogue_outcomes(rows).values():
        dialogues[outcome] = dialogues.get(outcome, 0) + 1
    choice = [r for r in rows if r["kind"] == "choice" and r["outcome"] == Outcome.OK]
    return {
        "dialogues": dict(sorted(dialogues.items())),
        "choice_answered": len(choice),
        "choice_correct": sum(1 for r in choice if r["correct"]),
        "open_answered": sum(1 for r in rows if r["kind"] == "open" and r["outcome"] == "ok"),
        "not_asked": sum(1 for r in rows if r["state"] == ItemState.NOT_ASKED),
    }


def run_page_part(run: Run) -> dict:
    """A QA run's summary on its page (``scoring.runs.views.run_page_part_register``)."""
    if run.kind != "qa_prediction":
        return {}
    return {"qa_run": qa_run_summary(run)}

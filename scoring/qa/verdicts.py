"""What each turn and each group of a QA run came to, in one place (docs/qa-evaluation.md,
"Verdicts").

A turn's verdict (``TurnVerdict.status``):

- ``correct`` / ``incorrect``: a multiple-choice turn that was answered, by exact match on the
  chosen option (``scoring.qa.results.turn_rows``, no judge); an open-ended turn that was
  answered, by the QA judge's ``correct`` when its judgement is ``ok`` and consistent (its 0-5
  ``score`` is then on the verdict);
- ``review``: the judge's score contradicts its own verdict (``Judgement.review``): a case for a
  person, neither right nor wrong;
- ``unjudged``: an answered open-ended turn with no usable judgement (no judge run yet, not yet
  judged, or the judge call failed);
- ``error``: asked, no usable answer (parse failure, refusal, API error);
- ``not_asked``: never sent, an earlier turn of its dialogue failed;
- ``pending``: not asked yet (the run is still going).

Which judgement counts: the one of ``judge_run`` when given (a QA judge run over ``run``);
otherwise of the newest *finished* QA judge run over ``run`` (latest ``finished_at``, then
highest id); a judge run still going is never picked on its own.

A group's verdict (``group_verdicts``), over its turns in dialogue order: ``error`` when the
dialogue failed (a turn ended in an error; the turns after it were not asked); else ``pending``
while a turn waits to be asked; ``correct`` when every turn is correct; ``incorrect`` when every
turn is judged (correct or incorrect) and one or more is incorrect; else ``review`` when a turn is
a review case, else ``unjudged``.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.models import ItemState, Judgement, Outcome, Run, RunKind, RunStatus
from scoring.qa.results import turn_rows

CORRECT, INCORRECT, REVIEW, UNJUDGED = "correct", "incorrect", "review", "unjudged"
ERROR, NOT_ASKED, PENDING = "error", "not_asked", "pending"
TURN_STATUSES = (CORRECT, INCORRECT, REVIEW, UNJUDGED, ERROR, NOT_ASKED, PENDING)
JUDGED = (CORRECT, INCORRECT)


class VerdictError(ValueError):
    pass


@dataclass(frozen=True)
class TurnVerdict:
    group: str  # group uid
    turn: int  # 1-based
    kind: str  # "choice" | "open"
    status: str  # one of TURN_STATUSES
    score: int | None  # 0-5 for a judged (correct/incorrect) open-ended turn, else None


def qa_judge_run(run: Run) -> Run | None:
    """The newest finished QA judge run over ``run`` (None when there is none)."""
    return (
        run.judged_by.filter(kind=RunKind.QA, status=RunStatus.FINISHED)
        .order_by("-finished_at", "-id")
        .first()
    )


def _judgements(run: Run, judge_run: Run | None) -> dict[int, tuple]:
    """``{QA run item id: (outcome, correct, score, review)}`` of ``judge_run`` (one query)."""
    if judge_run is None:
        return {}
    if judge_run.kind != RunKind.QA or not judge_run.sources.filter(pk=run.pk).exists():
        raise VerdictError(f"{judge_run.name} is not a QA judge run over {run.name}")
    return {
        pk: rest
        for pk, *rest in Judgement.objects.filter(
            run_id=judge_run.pk, prediction__run_id=run.pk
        ).values_list("prediction_id", "outcome", "correct", "score", "review")
    }


def turn_verdicts(run: Run, *, judge_run: Run | None = None) -> list[TurnVerdict]:
    """Every turn of QA run ``run`` in dialogue order with its verdict (module docstring).
    ``judge_run`` None: the newest finished QA judge run over ``run`` (``qa_judge_run``)."""
    if run.kind != RunKind.QA_PREDICTION:
        raise VerdictError(f"{run.name} is a {run.kind} run, not a QA run")
    if judge_run is None:
        judge_run = qa_judge_run(run)
    judged = _judgements(run, judge_run)
    verdicts = []
    for row in turn_rows(run):
        score = None
        if row["state"] == ItemState.NOT_ASKED:
            status = NOT_ASKED
        elif row["state"] != ItemState.DONE:
            status = PENDING
        elif row["outcome"] != Outcome.OK:
            status = ERROR
        elif row["kind"] == "choice":
            status = CORRECT if row["correct"] else INCORRECT
        else:
            outcome, correct, score, review = judged.get(row["item"], ("", None, None, False))
            if outcome != Outcome.OK:
                status, score = UNJUDGED, None
            elif review:
                status, score = REVIEW, None
            else:
                status = CORRECT if correct else INCORRECT
        verdicts.append(TurnVerdict(row["group"], row["turn"], row["kind"], status, score))
    return verdicts


def group_verdict(statuses: list[str]) -> str:
    """A group's verdict from its turns' statuses in dialogue order (module docstring)."""
    if ERROR in statuses or NOT_ASKED in statuses:
        return ERROR
    if PENDING in statuses:
        return PENDING
    if all(s == CORRECT for s in statuses):
        return CORRECT
    if all(s in JUDGED for s in statuses):
        return INCORRECT
    return REVIEW if REVIEW in statuses else UNJUDGED


def group_verdicts(verdicts: list[TurnVerdict]) -> dict[str, str]:
    """``{group uid: verdict}`` in the order groups first appear in ``verdicts``."""
    turns: dict[str, list[str]] = {}
    for v in sorted(verdicts, key=lambda v: v.turn):  # stable: groups keep their first order
        turns.setdefault(v.group, []).append(v.status)
    order = dict.fromkeys(v.group for v in verdicts)
    return {group: group_verdict(turns[group]) for group in order}

"""Verdicts of a QA run's turns and groups, from a real QA run against the stand-in and real QA
judge runs over it (scripted replies)."""

from __future__ import annotations

import json

import pytest

from scoring.judges import judge_start
from scoring.models import Run
from scoring.qa.verdicts import (
    TurnVerdict,
    VerdictError,
    group_verdict,
    group_verdicts,
    qa_judge_run,
    turn_verdicts,
)
from scoring.runs import run_drive
from tests.scoring import test_qa_runs as qa_runs
from tests.scoring.test_qa_runs import REFERENCES, SINGLE_REFERENCE, _drive, _start

# The QA runs' fixtures: two groups (a three-turn chain ending in a multiple-choice turn, a
# single open-ended turn) on one synthetic video, in a frozen QA manifest.
qa_source, qa_world = qa_runs.qa_source, qa_runs.qa_world


def _judge(run, make_endpoint, packages, name="qa-judge-1", drive=True) -> Run:
    judge = judge_start(
        name=name,
        kind="qa",
        # Another model per judge run: its calls are never taken from another run's cache.
        endpoint=make_endpoint(name=f"{name}-ep", model=f"stand-in-judge-{name}"),
        package=packages("qa-judge"),
        runs=[run],
    )
    if drive:
        run_drive(run_id=judge.pk)
        judge.refresh_from_db()
    return judge


def _reply(correct: bool, score: int) -> dict:
    return {"content": {"correct": correct, "score": score, "justification": "scripted"}}


def _statuses(verdicts, uid) -> list[tuple]:
    return [(v.turn, v.kind, v.status, v.score) for v in verdicts if v.group == uid]


def test_turn_and_group_verdicts_from_the_run_and_its_judge(
    qa_world, make_endpoint, packages, stand_in, django_assert_max_num_queries
):
    chain, single = qa_world["chain"]["uid"], qa_world["single"]["uid"]
    stand_in.rules({"contains": "Question 2 of group 1", "times": -1,
                    "action": {"content": json.dumps({"answer": "B"})}})  # fmt: skip
    run = _drive(_start(qa_world, make_endpoint, packages, media="text_only"))

    # No judge run yet: the open-ended turns are unjudged, the multiple-choice one exact match.
    verdicts = turn_verdicts(run)
    assert all(isinstance(v, TurnVerdict) for v in verdicts)
    assert _statuses(verdicts, chain) == [
        (1, "open", "unjudged", None),
        (2, "open", "unjudged", None),
        (3, "choice", "correct", None),
    ]
    assert _statuses(verdicts, single) == [(1, "open", "unjudged", None)]
    assert group_verdicts(verdicts) == dict.fromkeys(sorted([chain, single]), "unjudged")

    # The judge: turn 1 right (5), turn 2 a contradiction (right but 1), the single one wrong (2).
    stand_in.rules(
        {"contains": REFERENCES[0], "times": -1, "action": _reply(True, 5)},
        {"contains": REFERENCES[1], "times": -1, "action": _reply(True, 1)},
        {"contains": SINGLE_REFERENCE, "times": -1, "action": _reply(False, 2)},
    )
    judge = _judge(run, make_endpoint, packages)
    assert judge.status == "finished" and qa_judge_run(run) == judge
    with django_assert_max_num_queries(6):
        verdicts = turn_verdicts(run)
    assert _statuses(verdicts, chain) == [
        (1, "open", "correct", 5),
        (2, "open", "review", None),
        (3, "choice", "correct", None),
    ]
    assert _statuses(verdicts, single) == [(1, "open", "incorrect", 2)]
    assert group_verdicts(verdicts) == {chain: "review", single: "incorrect"}
    # The same by name.
    assert turn_verdicts(run, judge_run=judge) == verdicts

    # A newer finished judge run is the one that counts; one still going is never picked.
    stand_in.rules({"contains": "zebra-reference", "times": -1, "action": _reply(True, 4)})
    newer = _judge(run, make_endpoint, packages, name="qa-judge-2")
    assert qa_judge_run(run) == newer
    assert group_verdicts(turn_verdicts(run)) == {chain: "correct", single: "incorrect"}
    going = _judge(run, make_endpoint, packages, name="qa-judge-3", drive=False)
    assert going.status == "running" and qa_judge_run(run) == newer
    # An older one when named; a judge run still going: its unjudged turns say so.
    assert group_verdicts(turn_verdicts(run, judge_run=judge))[chain] == "review"
    assert {v.status for v in turn_verdicts(run, judge_run=going) if v.kind == "open"} == {
        "unjudged"
    }


def test_a_failed_dialogue_and_a_failed_judgement(qa_world, make_endpoint, packages, stand_in):
    chain, single = qa_world["chain"]["uid"], qa_world["single"]["uid"]
    stand_in.rules({"contains": "Question 1 of group 1", "times": -1, "action": {"status": 400}})
    run = _drive(_start(qa_world, make_endpoint, packages, media="text_only"))
    stand_in.rules(
        {"contains": SINGLE_REFERENCE, "times": -1, "action": {"status": 400, "message": "no"}},
        {"contains": REFERENCES[0], "times": -1, "action": _reply(False, 0)},
    )
    _judge(run, make_endpoint, packages)
    verdicts = turn_verdicts(run)
    assert _statuses(verdicts, chain) == [
        (1, "open", "incorrect", 0),
        (2, "open", "error", None),
        (3, "choice", "not_asked", None),
    ]
    # The judge call failed: no usable judgement, so unjudged (never wrong).
    assert _statuses(verdicts, single) == [(1, "open", "unjudged", None)]
    assert group_verdicts(verdicts) == {chain: "error", single: "unjudged"}


def test_a_run_still_going_and_bad_input(qa_world, make_endpoint, packages, stand_in):
    run = _start(qa_world, make_endpoint, packages, media="text_only")  # not driven
    verdicts = turn_verdicts(run)
    assert {v.status for v in verdicts} == {"pending"}
    assert set(group_verdicts(verdicts).values()) == {"pending"}
    other = _start(
        qa_world, make_endpoint, packages, name="qa-other", media="text_only", endpoint=run.endpoint
    )
    other = _drive(other)
    judge = _judge(other, make_endpoint, packages)
    with pytest.raises(VerdictError, match="not a QA judge run over"):
        turn_verdicts(run, judge_run=judge)
    with pytest.raises(VerdictError, match="not a QA run"):
        turn_verdicts(judge)


@pytest.mark.parametrize(
    ("statuses", "verdict"),
    [
        (["correct", "correct"], "correct"),
        (["correct", "incorrect"], "incorrect"),
        (["incorrect", "unjudged"], "unjudged"),
        (["review", "incorrect", "unjudged"], "review"),
        (["correct", "error", "not_asked"], "error"),
        (["correct", "pending"], "pending"),
    ],
)
def test_group_verdict_rules(statuses, verdict):
    assert group_verdict(statuses) == verdict

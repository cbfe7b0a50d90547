"""Storing a call's result: the item and its judgements are written together, by the holder of
the item's lease only, or not at all (one statement on PostgreSQL, a transaction elsewhere)."""

import json

import pytest
from django.db import connection

from scoring.judges import judge_start
from scoring.models import Judgement, RunItem
from scoring.runs.claims import claim_next, result_store
from studio import services

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["one statement", "orm"])
def path(request, monkeypatch):
    if request.param == "orm":
        monkeypatch.setattr(connection, "vendor", "other")
    elif connection.vendor != "postgresql":
        pytest.skip("the one-statement store is PostgreSQL's")
    return request.param


@pytest.fixture
def qa_run(make_endpoint, packages, tmp_path):
    path = tmp_path / "qa.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(
                {"uid": f"q{i}", "question": "What?", "reference_answer": "a", "answer": "a"}
            )
            for i in range(2)
        )
    )
    return judge_start(
        name="qa", kind="qa", endpoint=make_endpoint("judge"), package=packages("qa-judge"),
        qa_file=path,
    )  # fmt: skip


def _fields(**extra):
    return {
        "state": "done",
        "outcome": "ok",
        "detail": "",
        "calls": [{"status": 200, "error": ""}],
        "requests": 1,
        "prediction": None,
        "cached_from_id": None,
        "finished_at": services.now(),
        **extra,
    }


def _verdict(score):
    return {"outcome": "ok", "correct": True, "score": score, "review": False, "justification": "j"}


def test_the_holder_stores_the_result_and_every_judgement_together(qa_run, path):
    first, owner = claim_next(qa_run.pk)
    second = qa_run.items.exclude(pk=first.pk).get()
    updates = [
        (Judgement, {"item_id": first.pk}, _verdict(5)),
        (Judgement, {"item_id": second.pk}, _verdict(4)),
    ]
    stored = result_store(
        item_id=first.pk, owner=owner, fields=_fields(raw_response="{}"), updates=updates
    )
    assert stored is True
    first.refresh_from_db()
    assert (first.state, first.outcome, first.lease_owner, first.lease_expires_at) == (
        "done",
        "ok",
        "",
        None,
    )
    assert (first.calls, first.requests, first.raw_response) == (
        [{"status": 200, "error": ""}],
        1,
        "{}",
    )
    scores = dict(Judgement.objects.filter(run=qa_run).values_list("item_id", "score"))
    assert scores == {first.pk: 5, second.pk: 4}
    # The lease is gone with the result: the same owner cannot store again.
    again = result_store(
        item_id=first.pk, owner=owner, fields=_fields(outcome="refusal"), updates=[]
    )
    assert again is False
    first.refresh_from_db()
    assert first.outcome == "ok"


def test_a_taken_over_item_writes_neither_its_result_nor_its_judgements(qa_run, path):
    item, owner = claim_next(qa_run.pk)
    RunItem.objects.filter(pk=item.pk).update(lease_owner="another-worker")
    stored = result_store(
        item_id=item.pk,
        owner=owner,
        fields=_fields(),
        updates=[(Judgement, {"item_id": item.pk}, _verdict(5))],
    )
    assert stored is False
    item.refresh_from_db()
    assert (item.state, item.outcome, item.lease_owner) == ("running", "", "another-worker")
    judgement = Judgement.objects.get(item=item)
    assert (judgement.outcome, judgement.score) == ("", None)

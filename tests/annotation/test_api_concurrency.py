"""Concurrent writers on one video (PostgreSQL, real transactions): label saves of different steps
all land, moves that would overlap are refused by one rule or the other, and nothing deadlocks."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from annotation.models import MicroStep, StepRevision
from annotation.services import step_create

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
S = 1_000_000
API = "/api/annotation"


def run_together(calls):
    """Run the callables in threads started at once; return their results in order."""
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def worker(i, call):
        barrier.wait()
        try:
            results[i] = call()
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def test_label_saves_and_moves_of_one_video_at_once(login, video, annotator, admin_user):
    steps = [
        step_create(
            video=video,
            author=annotator,
            start_us=2 * i * S,
            cutoff_us=(2 * i + 1) * S,
            outcome_us=(2 * i + 1) * S,
            end_us=(2 * i + 2) * S,
        )
        for i in range(8)
    ]
    clients = [login(annotator) for _ in steps] + [login(admin_user), login(annotator)]
    calls = [
        (
            lambda c=c, s=s: (
                c.patch(
                    f"{API}/steps/{s.pk}/", {"version": 1, "local_intent": f"label {s.pk}"}
                ).status_code
            )
        )
        for c, s in zip(clients, steps, strict=False)
    ]
    # Two moves that would each make steps 0 and 1 overlap: at most one of them can land.
    calls.append(
        lambda: (
            clients[8]
            .patch(f"{API}/steps/{steps[0].pk}/", {"version": 1, "end_us": 3 * S})
            .status_code
        )
    )
    calls.append(
        lambda: clients[9].post(f"{API}/steps/{steps[1].pk}/retract/", {"version": 1}).status_code
    )
    statuses = run_together(calls)
    assert None not in statuses  # every request finished: no deadlock, no hang
    # Steps 2-7 had only their label save: all landed.
    assert statuses[2:8] == [200] * 6
    # Step 0: a label save and a move, both on version 1 — one lands; the other is stale, or the
    # move is refused first because step 1 is still in the way.
    assert sorted([statuses[0], statuses[8]]) in ([200, 409], [200, 400])
    # Step 1: a label save and a retract, both on version 1 — exactly one lands.
    assert sorted([statuses[1], statuses[9]]) == [200, 409]
    for s in steps[2:]:
        s.refresh_from_db()
        assert (s.local_intent, s.version) == (f"label {s.pk}", 2)
    acked = sum(code == 200 for code in statuses)
    assert StepRevision.objects.count() == len(steps) + acked
    assert MicroStep.objects.count() == 8

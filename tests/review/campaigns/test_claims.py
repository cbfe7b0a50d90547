"""Claiming under concurrency (PostgreSQL and SQLite, real transactions and threads): an item is
never leased to two people at once nor to more people than the campaign asks."""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections import defaultdict

import pytest
from django.db import connection

from review.campaigns.models import Assignment, Submission
from review.campaigns.services import campaign_create, claim_next, claimable_later, submit

pytestmark = pytest.mark.django_db(transaction=True)


def test_twenty_threads_never_share_an_item_nor_exceed_three(trivial_kind, manifest10, reviewers):
    people = reviewers(20)
    campaign = campaign_create(
        name="c20", kind="trivial", manifest=manifest10, people=people, per_item=3
    )
    barrier = threading.Barrier(len(people))
    spans: dict[int, list[tuple[float, float, int]]] = defaultdict(list)
    errors: list[BaseException] = []
    lock = threading.Lock()

    def work(person, rng: random.Random):
        try:
            barrier.wait()
            while True:
                assignment = claim_next(campaign=campaign, person=person)
                if assignment is None:
                    if not claimable_later(campaign=campaign, person=person):
                        return
                    time.sleep(0.005)  # the rest is held by others: wait, like a reviewer
                    continue
                began = time.monotonic()
                time.sleep(rng.uniform(0, 0.01))  # hold it a little, like a reviewer
                ended = time.monotonic()
                with lock:
                    spans[assignment.item_id].append((began, ended, person.pk))
                submit(assignment=assignment, person=person, part="", payload={"answer": "yes"})
        except BaseException as exc:  # reported below, so a failing thread fails the test
            errors.append(exc)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=work, args=(p, random.Random(i))) for i, p in enumerate(people)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors, errors
    assert not any(t.is_alive() for t in threads)

    # Never two holders at once: the observed holding spans of an item never overlap.
    for item_id, item_spans in spans.items():
        item_spans.sort()
        for (_, end_a, a), (start_b, _, b) in itertools.pairwise(item_spans):
            assert start_b >= end_a, f"item {item_id} held by {a} and {b} at once"
    # Exactly three distinct people per item, every one of them done; no fourth.
    done = Assignment.objects.filter(campaign=campaign, state="done")
    per_item = defaultdict(set)
    for item_id, person_id in done.values_list("item_id", "person_id"):
        per_item[item_id].add(person_id)
    assert len(per_item) == 10
    assert all(len(p) == 3 for p in per_item.values())
    assert Assignment.objects.filter(campaign=campaign).count() == 30
    assert Submission.objects.filter(campaign=campaign).count() == 30
    assert not Assignment.objects.filter(campaign=campaign, state="leased").exists()


def test_threads_of_one_person_share_one_lease(trivial_kind, manifest10, reviewers):
    people = reviewers(3)
    campaign = campaign_create(name="same", kind="trivial", manifest=manifest10, people=people)
    barrier = threading.Barrier(8)
    got: list[int] = []

    def work():
        try:
            barrier.wait()
            got.append(claim_next(campaign=campaign, person=people[0]).pk)
        finally:
            connection.close()

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert len(got) == 8 and len(set(got)) == 1
    assert Assignment.objects.filter(campaign=campaign, state="leased").count() == 1

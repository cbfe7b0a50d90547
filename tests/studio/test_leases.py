"""Leases on long work: one holder at a time, results only from the holder, expired work swept."""

from __future__ import annotations

import contextlib
import threading
import time
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.models import Q

from media.models import RenderedMedia
from studio import leases, services
from studio.leases import (
    WorkKind,
    lease_claim,
    lease_kept,
    lease_release,
    lease_renew,
    leases_sweep,
    work_kind_register,
)

NOT_READY = RenderedMedia.objects.exclude(status="ready")


@pytest.fixture
def medium(make_video):
    video = make_video()

    def make(n: int = 0, **fields) -> RenderedMedia:
        return RenderedMedia.objects.create(
            key=f"{n:064x}", video=video, kind="clip", profile="clip", spec={}, **fields
        )

    return make


@pytest.fixture
def clock(monkeypatch):
    """Moves the project's one clock."""
    state = {"now": services.now()}
    monkeypatch.setattr(services, "now", lambda: state["now"])

    def advance(seconds: float) -> None:
        state["now"] += timedelta(seconds=seconds)

    return advance


@pytest.fixture
def only_kind(monkeypatch):
    """Replaces the registered kinds with one test kind that records what it re-enqueues."""
    monkeypatch.setattr(leases, "_KINDS", {})
    requeued: list[int] = []
    cleaned: list[str] = []
    kind = WorkKind(
        name="test.render",
        model=RenderedMedia,
        running=Q(status="rendering"),
        requeue=requeued.extend,
        reset={"status": "pending"},
        fail={"status": "failed"},
        max_attempts=2,
        cleanup=lambda row: cleaned.append(row.lease_owner),
    )
    work_kind_register(kind)
    return requeued, cleaned


def test_a_held_row_cannot_be_claimed_until_its_lease_runs_out(db, medium, clock, settings):
    settings.LEASE_SECONDS = 60
    m = medium()
    first = lease_claim(queryset=NOT_READY, pk=m.pk, set={"status": "rendering"})
    assert first is not None
    assert lease_claim(queryset=NOT_READY, pk=m.pk) is None
    clock(59)
    assert lease_claim(queryset=NOT_READY, pk=m.pk) is None
    clock(2)
    second = lease_claim(queryset=NOT_READY, pk=m.pk)
    assert second is not None and second != first
    m.refresh_from_db()
    assert (m.lease_owner, m.attempts, m.status) == (second, 2, "rendering")


def test_a_row_outside_the_queryset_is_never_claimed(db, medium):
    m = medium(status="failed")
    assert lease_claim(queryset=RenderedMedia.objects.filter(status="pending"), pk=m.pk) is None
    m.refresh_from_db()
    assert (m.lease_owner, m.attempts) == ("", 0)


def test_claims_stop_at_max_attempts(db, medium, clock):
    m = medium()
    for _ in range(2):
        assert lease_claim(queryset=NOT_READY, pk=m.pk, max_attempts=2) is not None
        clock(3600)
    assert lease_claim(queryset=NOT_READY, pk=m.pk, max_attempts=2) is None


def test_only_the_holder_writes_its_result(db, medium, clock):
    m = medium()
    stale = lease_claim(queryset=NOT_READY, pk=m.pk, set={"status": "rendering"})
    clock(3600)
    fresh = lease_claim(queryset=NOT_READY, pk=m.pk)
    assert not lease_release(model=RenderedMedia, pk=m.pk, owner=stale, set={"error": "stale"})
    assert not lease_renew(model=RenderedMedia, pk=m.pk, owner=stale)
    assert lease_renew(model=RenderedMedia, pk=m.pk, owner=fresh)
    assert lease_release(model=RenderedMedia, pk=m.pk, owner=fresh, set={"status": "failed"})
    m.refresh_from_db()
    assert (m.status, m.error, m.lease_owner, m.lease_expires_at) == ("failed", "", "", None)


@pytest.mark.django_db(transaction=True)
def test_concurrent_claims_have_exactly_one_winner(medium):
    m = medium()
    barrier = threading.Barrier(10)
    owners: list[str | None] = []

    def claim():
        barrier.wait()
        try:
            owners.append(lease_claim(queryset=NOT_READY, pk=m.pk, set={"status": "rendering"}))
        finally:
            connection.close()

    threads = [threading.Thread(target=claim) for _ in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [o for o in owners if o is not None]
    assert len(owners) == 10 and len(winners) == 1
    m.refresh_from_db()
    assert (m.lease_owner, m.attempts) == (winners[0], 1)


@pytest.mark.django_db(transaction=True)
def test_a_kept_lease_is_renewed_and_notices_a_takeover(medium):
    m = medium()
    owner = lease_claim(queryset=NOT_READY, pk=m.pk, seconds=1)
    with lease_kept(model=RenderedMedia, pk=m.pk, owner=owner, seconds=1) as kept:
        time.sleep(1.5)  # longer than the lease: only the renewals keep it
        assert kept.renewals >= 2 and not kept.lost
        m.refresh_from_db()
        assert m.lease_expires_at > services.now()
        RenderedMedia.objects.filter(pk=m.pk).update(lease_owner="someone-else")
        deadline = time.monotonic() + 5
        while not kept.lost and time.monotonic() < deadline:
            time.sleep(0.05)
        assert kept.lost


@pytest.mark.django_db(transaction=True)
def test_one_keeper_renews_every_held_lease_in_one_statement_a_round(medium):
    rows = [medium(n) for n in range(5)]
    owners = [lease_claim(queryset=NOT_READY, pk=m.pk, seconds=1) for m in rows]
    keeper = leases._keeper
    with contextlib.ExitStack() as stack:
        kept = [
            stack.enter_context(lease_kept(model=RenderedMedia, pk=m.pk, owner=o, seconds=1))
            for m, o in zip(rows, owners, strict=True)
        ]
        rounds, statements = keeper.rounds, keeper.statements
        time.sleep(1.5)  # longer than the leases: only the renewals keep them
        assert all(k.renewals >= 2 and not k.lost for k in kept)
        assert [t.name for t in threading.enumerate()].count("lease-keeper") == 1
        # Leases claimed together fall due together: one UPDATE renews them all.
        assert keeper.statements - statements <= keeper.rounds - rounds + 1
        assert keeper.statements - statements < sum(k.renewals for k in kept)
        for m in rows:
            m.refresh_from_db()
            assert m.lease_expires_at > services.now()


@pytest.mark.django_db(transaction=True)
def test_a_lost_lease_is_noticed_and_the_others_are_still_renewed(medium):
    rows = [medium(n) for n in range(3)]
    owners = [lease_claim(queryset=NOT_READY, pk=m.pk, seconds=1) for m in rows]
    with contextlib.ExitStack() as stack:
        kept = [
            stack.enter_context(lease_kept(model=RenderedMedia, pk=m.pk, owner=o, seconds=1))
            for m, o in zip(rows, owners, strict=True)
        ]
        RenderedMedia.objects.filter(pk=rows[1].pk).update(lease_owner="someone-else")
        deadline = time.monotonic() + 5
        while not kept[1].lost and time.monotonic() < deadline:
            time.sleep(0.05)
        assert kept[1].lost and not kept[0].lost and not kept[2].lost
        renewals = kept[1].renewals
        before = [k.renewals for k in (kept[0], kept[2])]
        time.sleep(0.8)
        assert kept[1].renewals == renewals  # a lost lease is renewed no more
        assert all(k.renewals > b for k, b in zip((kept[0], kept[2]), before, strict=True))
    rows[1].refresh_from_db()
    assert rows[1].lease_owner == "someone-else"


@pytest.mark.django_db(transaction=True)
def test_the_keeper_stops_renewing_after_the_block_and_then_ends(medium, monkeypatch):
    monkeypatch.setattr(leases._Keeper, "LINGER_SECONDS", 0.3)
    m = medium()
    owner = lease_claim(queryset=NOT_READY, pk=m.pk, seconds=1)
    with lease_kept(model=RenderedMedia, pk=m.pk, owner=owner, seconds=1) as kept:
        time.sleep(0.5)
    renewals = kept.renewals
    assert renewals >= 1
    m.refresh_from_db()
    expires = m.lease_expires_at
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and leases._keeper._thread is not None:
        time.sleep(0.05)
    assert "lease-keeper" not in [t.name for t in threading.enumerate()]
    m.refresh_from_db()
    assert (kept.renewals, m.lease_expires_at) == (renewals, expires)
    # The next lease starts a keeper again.
    with lease_kept(model=RenderedMedia, pk=m.pk, owner=owner, seconds=1) as again:
        time.sleep(0.5)
    assert again.renewals >= 1


def test_the_sweeper_requeues_expired_work_and_leaves_live_work(db, medium, clock, only_kind):
    requeued, cleaned = only_kind
    dead, live, idle = medium(1), medium(2), medium(3)
    dead_owner = lease_claim(queryset=NOT_READY, pk=dead.pk, set={"status": "rendering"}, seconds=5)
    lease_claim(queryset=NOT_READY, pk=live.pk, set={"status": "rendering"}, seconds=600)
    clock(10)
    assert leases_sweep() == {"test.render": {"requeued": 1, "failed": 0}}
    assert requeued == [dead.pk]
    assert cleaned == [dead_owner]
    for m in (dead, live, idle):
        m.refresh_from_db()
    assert (dead.status, dead.lease_owner, dead.lease_expires_at) == ("pending", "", None)
    assert live.status == "rendering" and live.lease_owner
    assert idle.status == "pending"
    assert leases_sweep() == {"test.render": {"requeued": 0, "failed": 0}}


def test_the_sweeper_fails_work_that_used_its_attempts_with_the_reason(
    db, medium, clock, only_kind
):
    requeued, _ = only_kind
    m = medium()
    for _ in range(2):
        lease_claim(queryset=NOT_READY, pk=m.pk, set={"status": "rendering"}, seconds=5)
        clock(10)
        leases_sweep()
    m.refresh_from_db()
    assert m.status == "failed"
    assert "gave up after 2 attempt(s)" in m.error and "expired" in m.error
    assert requeued == [m.pk]  # once, after the first attempt


def test_a_running_row_without_a_lease_counts_as_expired(db, medium, only_kind):
    requeued, _ = only_kind
    m = medium(status="rendering")  # left by code that predates leases
    assert leases_sweep()["test.render"]["requeued"] == 1
    assert requeued == [m.pk]


def test_sweep_leases_command_reports_each_kind(db, medium, clock, only_kind, capsys):
    m = medium()
    lease_claim(queryset=NOT_READY, pk=m.pk, set={"status": "rendering"}, seconds=5)
    clock(10)
    call_command("sweep_leases")
    assert "test.render: 1 re-enqueued, 0 failed" in capsys.readouterr().out
    call_command("sweep_leases", "--json")
    assert capsys.readouterr().out.strip() == '{"test.render": {"failed": 0, "requeued": 0}}'


def test_renders_are_registered_with_the_sweeper():
    assert "media.render" in {kind.name for kind in leases.work_kinds()}

"""One mechanism for every long task: a claim is a lease, renewed while the work runs, and a sweeper
re-enqueues work whose lease expired.

Why leases: a message broker cannot tell us that a worker died. The filesystem transport forgets a
message once it is read; Redis redelivers only after its visibility timeout; a SIGKILLed worker's
main process acknowledges nothing. So the truth about who works on what is kept in the row itself:

- ``lease_claim`` takes a row with one conditional UPDATE, only when nobody holds it (no owner, or
  the owner's lease expired). Two workers can never both hold one row.
- ``lease_kept`` renews the lease while the work runs (one keeper thread per process renews all
  the leases held there); a worker that dies stops renewing, and its lease runs out
  ``LEASE_SECONDS`` later.
- ``lease_release`` writes the result only if the caller still holds the lease, so a worker that
  was presumed dead and comes back cannot overwrite the result of the one that took over.
- ``leases_sweep`` (every ``LEASE_SWEEP_SECONDS``: Celery beat in the distributed set-up, the
  launcher's ``sweep_leases --loop`` on the embedded default) finds running rows of every
  registered ``WorkKind`` whose lease expired, cleans up after the dead attempt, and re-enqueues
  them, or marks them failed with the reason once they used ``max_attempts`` attempts.

Tasks stay idempotent (keyed by content hash or natural key), so running one twice is harmless;
the lease only makes it rare and makes a dead worker's work come back without an operator.
"""

from __future__ import annotations

import logging
import math
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import F, Q

from studio import services as studio_services

log = logging.getLogger(__name__)


class Leased(models.Model):
    """Lease fields for a row that a worker claims: who holds it, until when, how often it was
    claimed. Add it to the bases of a model whose rows are units of long work."""

    lease_owner = models.CharField(
        max_length=200, blank=True, default="", help_text="Worker holding this row (host:pid:token)"
    )
    lease_expires_at = models.DateTimeField(
        null=True, blank=True, help_text="The holder renews this while it works"
    )
    attempts = models.PositiveIntegerField(default=0, help_text="How many times it was claimed")

    class Meta:
        abstract = True


def worker_id() -> str:
    """This process: host name and process id."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _seconds(seconds: int | None) -> int:
    return settings.LEASE_SECONDS if seconds is None else seconds


def lease_claim(
    *,
    queryset: models.QuerySet,
    pk,
    set: dict | None = None,
    seconds: int | None = None,
    max_attempts: int | None = None,
) -> str | None:
    """Claim row ``pk`` of ``queryset`` (which says what is claimable) when its lease is free.

    One conditional UPDATE sets a new owner token, the expiry, ``attempts + 1`` and the fields in
    ``set``. Returns the owner token, or None when the row is not claimable, someone else holds
    it, or (with ``max_attempts``) it has used its attempts. On PostgreSQL a concurrent claim
    re-reads the row after the first one commits and finds it taken; SQLite writes one at a time.
    """
    now = studio_services.now()
    owner = f"{worker_id()}:{secrets.token_hex(4)}"
    free = Q(lease_owner="") | Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lt=now)
    rows = queryset.filter(pk=pk).filter(free)
    if max_attempts is not None:
        rows = rows.filter(attempts__lt=max_attempts)
    changed = rows.update(
        lease_owner=owner,
        lease_expires_at=now + timedelta(seconds=_seconds(seconds)),
        attempts=F("attempts") + 1,
        **(set or {}),
    )
    return owner if changed == 1 else None


def lease_renew(*, model: type[models.Model], pk, owner: str, seconds: int | None = None) -> bool:
    """Extend the lease; False when ``owner`` no longer holds it (the sweeper or another worker
    took the row over)."""
    expires = studio_services.now() + timedelta(seconds=_seconds(seconds))
    return model.objects.filter(pk=pk, lease_owner=owner).update(lease_expires_at=expires) == 1


def lease_release(
    *,
    model: type[models.Model],
    pk,
    owner: str,
    set: dict | None = None,
) -> bool:
    """Clear the lease and write ``set`` only if ``owner`` still holds it. False means the row was
    taken over: the caller writes nothing else and leaves the result to the new holder."""
    changed = model.objects.filter(pk=pk, lease_owner=owner).update(
        lease_owner="", lease_expires_at=None, **(set or {})
    )
    return changed == 1


@dataclass(eq=False)
class KeptLease:
    owner: str
    lost: bool = False
    renewals: int = 0


@dataclass(eq=False)
class _Kept:
    """A lease the keeper renews: its row, its length and when it is due again."""

    model: type[models.Model]
    pk: object
    seconds: int | None
    period: float
    due: float
    kept: KeptLease


class _Keeper:
    """One daemon thread per process renews every lease held in the process.

    Each round renews the leases that are due with one UPDATE per model and lease length, so
    dozens of items in flight cost one statement every ``LEASE_SECONDS / 3``, not a thread each.
    A lease the UPDATE did not extend is looked up: when its row names another owner it is lost
    (``kept.lost``) and renewed no more. The thread closes its database connection whenever it
    holds nothing and ends after ``LINGER_SECONDS`` without leases (the next lease starts it
    again); a forked child starts its own.
    """

    LINGER_SECONDS = 5.0

    def __init__(self):
        self._cond = threading.Condition()
        self._held: set[_Kept] = set()
        self._thread: threading.Thread | None = None
        self._pid = 0
        self._wakes_at = 0.0  # when the keeper's wait ends (monotonic)
        self.rounds = 0
        self.statements = 0

    def add(self, entry: _Kept) -> None:
        with self._cond:
            if self._pid != os.getpid():  # a forked child inherits no running thread
                self._held, self._thread, self._pid = set(), None, os.getpid()
            self._held.add(entry)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="lease-keeper", daemon=True)
                self._thread.start()
            elif entry.due < self._wakes_at:
                self._cond.notify()  # due before the keeper's next round (a shorter lease)

    def discard(self, entry: _Kept) -> None:
        """Stop renewing ``entry``. A round already under way may still send its UPDATE, which
        names the owner, so it cannot touch the row once the lease is released; it no longer
        counts or reports anything for ``entry``."""
        with self._cond:
            self._held.discard(entry)  # the keeper finds out at its next round: no wake-up

    def _run(self) -> None:
        idle_since = None
        try:
            while True:
                with self._cond:
                    if not self._held:
                        connection.close()  # nothing held: no idle connection kept open
                        idle_since = idle_since or time.monotonic()
                        left = self.LINGER_SECONDS - (time.monotonic() - idle_since)
                        if left <= 0:
                            self._thread = None
                            return
                        self._wakes_at = math.inf  # any new lease wakes it
                        self._cond.wait(left)
                        continue
                    idle_since = None
                    now = time.monotonic()
                    wait = min(e.due for e in self._held) - now
                    if wait > 0:
                        self._wakes_at = now + wait
                        self._cond.wait(wait)
                        continue
                    # Renewing early is harmless: leases that fall due within half a period
                    # go with this round, so leases taken at about the same time share it.
                    due = [e for e in self._held if e.due <= now + e.period / 2]
                self._round(due)
        finally:
            connection.close()

    def _round(self, due: list[_Kept]) -> None:
        self.rounds += 1
        groups: dict[tuple, list[_Kept]] = {}
        for entry in due:
            groups.setdefault((entry.model, entry.seconds), []).append(entry)
        for (model, seconds), entries in groups.items():
            try:
                self._renew(model, seconds, entries)
            except Exception:  # the database is unreachable: try again next period
                log.exception("renewing %d lease(s) on %s failed", len(entries), model.__name__)
                connection.close()
                for entry in entries:
                    entry.due = time.monotonic() + entry.period

    def _renew(self, model, seconds, entries: list[_Kept]) -> None:
        expires = studio_services.now() + timedelta(seconds=_seconds(seconds))
        held = Q()
        for entry in entries:
            held |= Q(pk=entry.pk, lease_owner=entry.kept.owner)
        renewed = model.objects.filter(held).update(lease_expires_at=expires)
        self.statements += 1
        lost: set[_Kept] = set()
        if renewed != len(entries):
            rows = model.objects.filter(pk__in=[e.pk for e in entries])
            owners = dict(rows.values_list("pk", "lease_owner"))
            lost = {e for e in entries if owners.get(e.pk) != e.kept.owner}
        now = time.monotonic()
        with self._cond:
            for entry in entries:
                if entry not in self._held:
                    continue  # its block ended meanwhile (and released it)
                if entry in lost:
                    entry.kept.lost = True
                    self._held.discard(entry)
                    log.warning(
                        "lease on %s %s lost by %s", model.__name__, entry.pk, entry.kept.owner
                    )
                else:
                    entry.kept.renewals += 1
                    entry.due = now + entry.period


_keeper = _Keeper()


@contextmanager
def lease_kept(
    *, model: type[models.Model], pk, owner: str, seconds: int | None = None
) -> Iterator[KeptLease]:
    """Renew the lease every ``seconds / 3`` while the block runs (the process's one keeper
    thread does it, together with every other lease held here). The yielded object's ``lost``
    turns True when a renewal finds the lease taken over (the block may stop early;
    ``lease_release`` refuses its result either way)."""
    period = max(_seconds(seconds) / 3, 0.05)
    kept = KeptLease(owner=owner)
    entry = _Kept(model, pk, seconds, period, time.monotonic() + period, kept)
    _keeper.add(entry)
    try:
        yield kept
    finally:
        _keeper.discard(entry)


# --- kinds of work and the sweeper ----------------------------------------------------------------


@dataclass(frozen=True)
class WorkKind:
    """A kind of leased work the sweeper looks after."""

    name: str
    model: type[models.Model]
    running: Q
    requeue: Callable[[list[int]], None]
    reset: dict
    fail: dict
    error_field: str = "error"
    max_attempts: int | None = None
    cleanup: Callable[[models.Model], None] | None = field(default=None, compare=False)

    @property
    def attempts_allowed(self) -> int:
        return self.max_attempts if self.max_attempts is not None else settings.LEASE_MAX_ATTEMPTS


_KINDS: dict[str, WorkKind] = {}


def work_kind_register(kind: WorkKind) -> None:
    """Register a kind (from ``AppConfig.ready``); registering the same name again replaces it."""
    _KINDS[kind.name] = kind


def work_kinds() -> list[WorkKind]:
    return [_KINDS[name] for name in sorted(_KINDS)]


def _expired_reason(row, allowed: int) -> str:
    holder = row.lease_owner or "a worker"
    return (
        f"gave up after {allowed} attempt(s): the lease of {holder} expired without a result "
        "(the worker stopped or lost the database)"
    )


def _sweep_kind(kind: WorkKind, now) -> dict[str, int]:
    expired = Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lt=now)
    requeued: list[int] = []
    failed = 0
    with transaction.atomic():
        rows = kind.model.objects.filter(kind.running).filter(expired).order_by("pk")
        if connection.features.has_select_for_update_skip_locked:
            rows = rows.select_for_update(skip_locked=True)
        for row in rows:
            # Conditional on the lease we read, so a claim or renewal in between wins.
            same = kind.model.objects.filter(
                pk=row.pk, lease_owner=row.lease_owner, lease_expires_at=row.lease_expires_at
            )
            if row.attempts >= kind.attempts_allowed:
                reason = _expired_reason(row, kind.attempts_allowed)
                values = {**kind.fail, kind.error_field: reason}
                if same.update(lease_owner="", lease_expires_at=None, **values):
                    failed += 1
                    log.warning("%s %s failed: %s", kind.name, row.pk, values[kind.error_field])
            elif same.update(lease_owner="", lease_expires_at=None, **kind.reset):
                requeued.append(row.pk)
            if kind.cleanup is not None:
                try:
                    kind.cleanup(row)
                except OSError:
                    log.exception("cleaning up after %s %s failed", kind.name, row.pk)
        if requeued:
            log.info("%s: re-enqueued %d with expired leases", kind.name, len(requeued))
            kind.requeue(requeued)
    return {"requeued": len(requeued), "failed": failed}


def leases_sweep(*, now=None) -> dict[str, dict[str, int]]:
    """Re-enqueue (or fail) the running rows of every registered kind whose lease expired."""
    now = now or studio_services.now()
    return {kind.name: _sweep_kind(kind, now) for kind in work_kinds()}

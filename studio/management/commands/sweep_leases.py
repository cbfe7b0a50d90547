import json as jsonlib
import signal
import time

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import close_old_connections

from studio.leases import leases_sweep


class Command(BaseCommand):
    help = (
        "Re-enqueue long work (renders, model calls, ...) whose worker lease expired, or mark it "
        "failed after its last attempt. --loop keeps sweeping (the embedded default's scheduler)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--loop",
            type=float,
            nargs="?",
            const=-1,
            default=None,
            metavar="SECONDS",
            help="sweep every SECONDS (default LEASE_SWEEP_SECONDS) until stopped",
        )
        parser.add_argument("--json", action="store_true", help="print what each sweep did")

    def handle(self, *args, loop, **options):
        as_json = options["json"]
        if loop is None:
            self._report(leases_sweep(), as_json, quiet=False)
            return
        period = settings.LEASE_SWEEP_SECONDS if loop < 0 else loop
        # A plain flag, not a threading.Event: Event.set() from a signal handler deadlocks when
        # the signal lands while the main thread holds the Event's lock inside wait().
        stopping = []
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stopping.append(True))
        while not stopping:
            close_old_connections()
            self._report(leases_sweep(), as_json, quiet=True)
            next_sweep = time.monotonic() + period
            while not stopping and time.monotonic() < next_sweep:
                time.sleep(min(0.2, max(next_sweep - time.monotonic(), 0)))

    def _report(self, result: dict, as_json: bool, *, quiet: bool) -> None:
        if as_json:
            self.stdout.write(jsonlib.dumps(result, sort_keys=True))
            return
        for name, counts in result.items():
            if counts["requeued"] or counts["failed"] or not quiet:
                self.stdout.write(
                    f"{name}: {counts['requeued']} re-enqueued, {counts['failed']} failed"
                )

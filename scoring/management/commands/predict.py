from django.core.management.base import BaseCommand, CommandError

from scoring.management.commands import _lookup
from scoring.management.commands._progress import report_started
from scoring.runs import CONDITIONS, RunError, run_predict


class Command(BaseCommand):
    help = (
        "Start prediction run NAME over a frozen manifest (or a whole release) under one "
        "condition; the same command again resumes it (ok items are never called again)."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--manifest")
        parser.add_argument("--release", help="the whole release instead of a manifest")
        parser.add_argument("--condition", required=True, choices=CONDITIONS)
        parser.add_argument("--endpoint", required=True)
        parser.add_argument("--package", required=True, help="name, name@version or SHA-256")
        parser.add_argument("--wait", action="store_true", help="show progress until done")
        parser.add_argument(
            "--retry-failed",
            action="store_true",
            help="also call parse failures and refusals again",
        )

    def handle(self, *args, **o):
        release, manifest = _lookup.steps(manifest=o["manifest"], release=o["release"])
        try:
            run = run_predict(
                name=o["name"],
                endpoint=_lookup.endpoint(o["endpoint"]),
                package=_lookup.package(o["package"]),
                condition=o["condition"],
                release=release,
                manifest=manifest,
                retry_failed=o["retry_failed"],
            )
        except RunError as exc:
            raise CommandError(str(exc)) from None
        report_started(run, wait_for_it=o["wait"], stdout=self.stdout, stderr=self.stderr)

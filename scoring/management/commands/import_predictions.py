from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scoring.management.commands import _lookup
from scoring.runs import CONDITIONS, RunError
from scoring.runs.imports import predictions_import
from studio.jsonl import ImportRefused


class Command(BaseCommand):
    help = (
        "Load predictions made elsewhere (JSON Lines in the run_export format; per line sample, "
        "outcome and prediction) as finished prediction run RUN; all lines or none."
    )

    def add_arguments(self, parser):
        parser.add_argument("run")
        parser.add_argument("file", type=Path)
        parser.add_argument("--manifest")
        parser.add_argument("--release", help="the whole release instead of a manifest")
        parser.add_argument("--condition", required=True, choices=CONDITIONS)
        parser.add_argument("--endpoint", required=True, help="the model's registered endpoint")
        parser.add_argument("--package", default="official-prediction")

    def handle(self, *args, **o):
        release, manifest = _lookup.steps(manifest=o["manifest"], release=o["release"])
        try:
            run = predictions_import(
                name=o["run"],
                path=o["file"],
                endpoint=_lookup.endpoint(o["endpoint"]),
                package=_lookup.package(o["package"]),
                condition=o["condition"],
                release=release,
                manifest=manifest,
            )
        except ImportRefused as exc:
            raise CommandError(exc.report(str(o["file"]))) from None
        except RunError as exc:
            raise CommandError(str(exc)) from None
        info = run.provenance["imported"]
        self.stdout.write(
            f"run {run.name}: {info['lines']} predictions imported "
            f"({info['missing_steps']} steps of the set not in the file); "
            f"unknown: {', '.join(info['unknown']) or 'nothing'}"
        )

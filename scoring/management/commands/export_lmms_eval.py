from pathlib import Path

from django.core.management.base import BaseCommand

from scoring.management.commands import _lookup
from scoring.reports.lmms_eval import lmms_eval_export


class Command(BaseCommand):
    help = (
        "Write a frozen release (or manifest) as an lmms-eval task folder: task YAML, utils.py, "
        "our prediction and reference-judge packages, and the data as a datasets folder."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path)
        parser.add_argument("--manifest")
        parser.add_argument("--release", help="the whole release instead of a manifest")

    def handle(self, *args, **o):
        release, manifest = _lookup.steps(manifest=o["manifest"], release=o["release"])
        result = lmms_eval_export(release=release, manifest=manifest, folder=o["folder"])
        self.stdout.write(
            f"{o['folder']}: task {result['task']} over {result['steps']} steps "
            f"(run it with: lmms_eval --include_path {o['folder']} --tasks {result['task']} ...)"
        )

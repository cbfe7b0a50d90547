import json
import sys

from django.core.management.base import BaseCommand

from scoring.management.commands import _lookup
from scoring.reports.leaderboard import leaderboard, leaderboard_csv


class Command(BaseCommand):
    help = (
        "The leaderboard of a manifest (or a whole release): per model the reference and video "
        "judge scores by the full-benchmark rule (missing = 0), coverage, groups, scenes."
    )

    def add_arguments(self, parser):
        parser.add_argument("--manifest")
        parser.add_argument("--release", help="the whole release instead of a manifest")
        parser.add_argument("--condition", default="official")
        parser.add_argument("--format", choices=["json", "csv"], default="json")
        parser.add_argument("--table", choices=["models", "scenes"], default="models")

    def handle(self, *args, **o):
        release, manifest = _lookup.steps(manifest=o["manifest"], release=o["release"])
        text, _ = leaderboard(release=release, manifest=manifest, condition=o["condition"])
        if o["format"] == "csv":
            sys.stdout.write(leaderboard_csv(json.loads(text), o["table"]))
        else:
            sys.stdout.write(text + "\n")

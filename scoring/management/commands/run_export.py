import json
import sys

from django.core.management.base import BaseCommand

from scoring.management.commands import _lookup
from scoring.runs.export import run_lines


class Command(BaseCommand):
    help = "A run as JSON Lines: one object per prediction (or judgement), see docs/models.md."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("-o", "--output", help="file (default: standard output)")

    def handle(self, *args, **o):
        run = _lookup.run(o["name"])
        out = open(o["output"], "w", encoding="utf-8") if o["output"] else sys.stdout  # noqa: SIM115
        try:
            for line in run_lines(run):
                out.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
        finally:
            if out is not sys.stdout:
                out.close()

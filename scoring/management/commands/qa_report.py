"""manage.py qa_report RUN [RUN ...] [--pair A B ...] [--format json|csv] [--fresh]: the QA
report of QA runs (docs/qa-evaluation.md, "Report")."""

import json

from django.core.management.base import BaseCommand, CommandError

from scoring.qa.report import ReportError
from scoring.qa.report_files import qa_report_cached, report_csv, report_json, report_subject


class Command(BaseCommand):
    help = (
        "Report QA runs: accuracy and mean score over judged turns by structure, category, "
        "modality and turn, with Wilson and source-video bootstrap intervals; paired "
        "differences of two runs on the same groups (--pair A B)."
    )

    def add_arguments(self, parser):
        parser.add_argument("runs", nargs="+", metavar="RUN", help="QA runs, in report order")
        parser.add_argument(
            "--pair",
            nargs=2,
            action="append",
            default=[],
            metavar=("A", "B"),
            help="paired difference A - B on the turns both have (repeat)",
        )
        parser.add_argument("--format", choices=("json", "csv"), default="json")
        parser.add_argument(
            "--fresh", action="store_true", help="compute again, ignoring a stored report"
        )

    def handle(self, *args, runs, pair, format, fresh, **options):
        try:
            found, pairs = report_subject(runs, [tuple(p) for p in pair])
            text, _cached = qa_report_cached(found, pairs, fresh=fresh)
        except ReportError as exc:
            raise CommandError(str(exc)) from None
        if format == "json":
            self.stdout.write(report_json(text), ending="")
        else:
            self.stdout.write(report_csv(json.loads(text)), ending="")

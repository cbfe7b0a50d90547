"""manage.py qa_review_report NAME [--format json|csv] [--judge RUN ...]: the QA-group review
report of a campaign (docs/qa.md)."""

import json

from django.core.management.base import BaseCommand, CommandError

from review.campaigns.models import Campaign
from scoring.models import Run
from scoring.models.runs import RunKind
from scoring.reports.qa_review import qa_review_report, report_csv


class Command(BaseCommand):
    help = (
        "Report a QA-review campaign: decisions with Wilson intervals, agreement, edits, QA judge."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", help="The campaign's name")
        parser.add_argument("--format", choices=("json", "csv"), default="json")
        parser.add_argument(
            "--judge", action="append", default=None, help="A QA judge run to include (repeat)"
        )

    def handle(self, *args, name, format, judge, **options):
        campaign = Campaign.objects.filter(name=name, kind="qa_review").first()
        if campaign is None:
            raise CommandError(f"No QA-review campaign named {name}.")
        runs = None
        if judge:
            runs = list(Run.objects.filter(kind=RunKind.QA, name__in=judge))
            missing = sorted(set(judge) - {r.name for r in runs})
            if missing:
                raise CommandError(f"No QA judge run named {', '.join(missing)}.")
        report = qa_review_report(campaign=campaign, judge_runs=runs)
        if format == "json":
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2, sort_keys=True))
        else:
            self.stdout.write(report_csv(report), ending="")

"""manage.py audit_report NAME [--format json|csv] [-o FILE]: the audit report of a campaign
(docs/audit.md, "Report"): unrounded JSON, or one CSV table."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from review.audit.report import report_csv
from review.audit.reporting import campaign_report
from review.campaigns.models import Campaign


class Command(BaseCommand):
    help = "Print the audit report of a campaign as JSON or CSV."
    kind, what = "audit", "audit"  # boundary_report: the boundary's

    def compute(self, campaign) -> tuple[dict, str]:
        report = campaign_report(campaign)
        return report, report_csv(report)

    def add_arguments(self, parser):
        parser.add_argument("name", help="The campaign's name")
        parser.add_argument("--format", choices=("json", "csv"), default="json")
        parser.add_argument("-o", "--output", help="Write to this file instead of standard output")

    def handle(self, *args, name, format, output, **options):
        campaign = Campaign.objects.filter(name=name, kind=self.kind).first()
        if campaign is None:
            raise CommandError(f"No {self.what} campaign named {name}.")
        report, table = self.compute(campaign)
        text = (
            json.dumps(report, indent=2, ensure_ascii=False) + "\n" if format == "json" else table
        )
        if output:
            with open(output, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
        else:
            self.stdout.write(text, ending="")

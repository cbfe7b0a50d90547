"""manage.py campaign_status NAME [--json]: progress per person and overall, and each person's
exclusions by reason."""

import json

from django.core.management.base import BaseCommand, CommandError

from review.campaigns.models import Campaign
from review.campaigns.progress import progress


class Command(BaseCommand):
    help = "Show a campaign's progress per person and overall."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--json", action="store_true", help="Print the progress as JSON")

    def handle(self, *args, name, json: bool = False, **options):
        campaign = Campaign.objects.filter(name=name).select_related("manifest").first()
        if campaign is None:
            raise CommandError(f"No campaign named {name}.")
        report = progress(campaign=campaign)
        if json:
            self.stdout.write(_dumps(report))
            return
        self.stdout.write(
            f"{report['campaign']} ({report['kind']}, {report['state']}) over "
            f"{report['manifest']}: {report['done']} of {report['needed']} judgements done "
            f"({report['fraction_done']:.1%}), {report['complete_items']} of {report['items']} "
            f"items complete, {report['leased']} leased now"
        )
        for row in report["people"]:
            self.stdout.write(
                f"  {row['person']}: {row['done']} done, {row['leased']} leased, "
                f"{row['eligible']} eligible, {row['excluded']} excluded"
            )
            for reason, n in row["exclusions"].items():
                self.stdout.write(f"    excluded from {n}: {reason}")


def _dumps(report: dict) -> str:
    return json.dumps(report, indent=2, sort_keys=True)

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from review.models import Campaign
from scoring.judgeval.reading import campaign_report
from scoring.judgeval.report import report_csv


class Command(BaseCommand):
    help = (
        "The judge-validation report of a campaign (docs/judge-validation.md): human reliability, "
        "judge agreement, ranking, scenes, leave-one-out; --format json|csv."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", help="The judge_validation campaign")
        parser.add_argument("--format", choices=["json", "csv"], default="json")
        parser.add_argument(
            "--judges", default="", help="Judge runs, comma-separated (default all)"
        )
        parser.add_argument("--resamples", type=int, default=2000)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("-o", "--output", default="")

    def handle(self, *args, **o):
        campaign = Campaign.objects.filter(name=o["name"], kind="judge_validation").first()
        if campaign is None:
            raise CommandError(f"no judge_validation campaign {o['name']!r}")
        if o["resamples"] < 1:
            raise CommandError("--resamples must be at least 1")
        judges = [j.strip() for j in o["judges"].split(",") if j.strip()] or None
        report = campaign_report(
            campaign=campaign, judges=judges, n_resamples=o["resamples"], seed=o["seed"]
        )
        if o["format"] == "csv":
            text = report_csv(report)
        else:
            text = json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        if o["output"]:
            Path(o["output"]).write_text(text, encoding="utf-8")
        else:
            self.stdout.write(text, ending="")

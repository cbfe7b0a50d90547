"""manage.py baseline_report NAME [--format json|csv]: the human-baseline report of a campaign
(docs/baseline.md) — the same document as the report page."""

import json
import sys

from django.core.management.base import BaseCommand, CommandError

from scoring.reports.baseline import REPLICATES, report_csv
from scoring.reports.baseline_inputs import BaselineError, baseline_campaign, baseline_report
from scoring.similarity import CHOICES, MINILM, SimilarityUnavailable, similarity


class Command(BaseCommand):
    help = (
        "The human-baseline report of campaign NAME: human and matched model scores, gaps with "
        "clustered bootstrap intervals, answerability, agreement, Next ambiguity and strata."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--format", choices=["json", "csv"], default="json")
        parser.add_argument("--judge", help="the reference judge run of the answers (latest)")
        parser.add_argument(
            "--similarity",
            choices=CHOICES,
            default=MINILM,
            help="the frozen similarity; lexical is an explicit fallback",
        )
        parser.add_argument("--seed", type=int, help="bootstrap seed (default: the manifest's)")
        parser.add_argument("--replicates", type=int, default=REPLICATES)
        parser.add_argument("-o", "--output", help="a file instead of standard output")

    def handle(self, *args, **o):
        try:
            campaign = baseline_campaign(o["name"])
            function = similarity(o["similarity"])
            document = baseline_report(
                campaign,
                similarity=function,
                judge=o["judge"],
                seed=o["seed"],
                replicates=o["replicates"],
            )
        except (BaselineError, SimilarityUnavailable, ValueError) as exc:
            raise CommandError(str(exc)) from None
        if o["format"] == "csv":
            text = report_csv(document)
        else:
            text = json.dumps(document, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
        if o["output"]:
            with open(o["output"], "w", encoding="utf-8", newline="") as f:
                f.write(text)
            self.stderr.write(f"wrote {o['output']}")
        else:
            sys.stdout.write(text)

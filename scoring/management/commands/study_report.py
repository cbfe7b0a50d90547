import json
import sys

from django.core.management.base import BaseCommand, CommandError

from scoring.models import Study
from scoring.reports.study import TABLES, report_csv, study_report


class Command(BaseCommand):
    help = (
        "The report of study NAME: per model x condition x dimension scores on the common valid "
        "set and every contrast with its clustered interval, as JSON or one CSV table."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--format", choices=["json", "csv"], default="json")
        parser.add_argument("--table", choices=TABLES, default="effects", help="CSV only")
        parser.add_argument("-o", "--output", help="a file instead of standard output")

    def handle(self, *args, **o):
        study = Study.objects.filter(name=o["name"]).first()
        if study is None:
            raise CommandError(f"no study {o['name']!r}")
        text, cached = study_report(study)
        if o["format"] == "csv":
            text = report_csv(json.loads(text), o["table"])
        else:
            text += "\n"
        if o["output"]:
            with open(o["output"], "w", encoding="utf-8", newline="") as f:
                f.write(text)
            self.stderr.write(f"wrote {o['output']} ({'cached' if cached else 'computed'})")
        else:
            sys.stdout.write(text)

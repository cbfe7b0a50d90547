import json

from django.core.management.base import BaseCommand

from scoring.judges import benchmark_scores, qa_summary
from scoring.management.commands import _lookup
from scoring.management.commands._progress import bar
from scoring.qa.results import qa_run_summary
from scoring.runs.progress import run_progress


class Command(BaseCommand):
    help = "Progress of a run: items, outcomes, requests, tokens, speed; --json for machines."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **o):
        run = _lookup.run(o["name"])
        progress = run_progress(run)
        if run.kind == "qa":
            progress["qa"] = qa_summary(run)
        elif run.kind == "qa_prediction":
            progress["dialogues"] = qa_run_summary(run)
        elif run.is_judge and run.sources.count() == 1:
            progress["scores"] = benchmark_scores(run.sources.get(), run)
        if o["json"]:
            self.stdout.write(json.dumps(progress, indent=2, sort_keys=True))
            return
        self.stdout.write(f"{run.name} ({run.kind}, {run.status}): {bar(progress)}")
        if run.error:
            self.stdout.write(f"stopped: {run.error}")

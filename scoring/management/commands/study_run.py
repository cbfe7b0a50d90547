import json
import time

from django.core.management.base import BaseCommand, CommandError

from scoring.models import Study
from scoring.studies import StudyError, progress_line, study_progress, study_start
from scoring.studies.services import study_runs_open


class Command(BaseCommand):
    help = (
        "Start or continue study NAME: renders, predicts and judges what is missing (cached "
        "results are reused); --wait follows it to the end."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--wait", action="store_true", help="show progress until complete")
        parser.add_argument(
            "--retry", action="store_true", help="also resume existing runs (api errors again)"
        )
        parser.add_argument("--json", action="store_true", help="print the progress as JSON")
        parser.add_argument(
            "--poll", type=float, default=2.0, help="seconds between looks with --wait"
        )

    def handle(self, *args, **o):
        study = Study.objects.filter(name=o["name"]).first()
        if study is None:
            raise CommandError(f"no study {o['name']!r} (manage.py study_create)")
        try:
            started = study_start(study=study, retry=o["retry"])
        except StudyError as exc:
            raise CommandError(str(exc)) from None
        for kind in ("predictions", "judges"):
            for name in started[kind]:
                self.stdout.write(f"started {kind[:-1]} run {name}")
        progress = study_progress(study)
        while o["wait"] and progress["stage"] != "complete":
            self.stderr.write("\r" + progress_line(progress), ending="")
            time.sleep(o["poll"])
            try:
                started = study_start(study=study)
            except StudyError as exc:
                raise CommandError(str(exc)) from None
            for name in started["judges"]:
                self.stderr.write(f"\nstarted judge run {name}")
            progress = study_progress(study)
            if progress["stage"] != "complete" and not study_runs_open(study):
                self.stderr.write("")
                raise CommandError(
                    f"{progress_line(progress)}\nnothing is running but the study is not "
                    "complete (failed media or runs to resume): see manage.py run_show, or "
                    "study_run --retry"
                )
        if o["wait"]:
            self.stderr.write("")
        if o["json"]:
            self.stdout.write(json.dumps(progress, indent=2))
        else:
            self.stdout.write(progress_line(progress))

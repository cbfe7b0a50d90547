import json
import time

from django.core.management.base import BaseCommand, CommandError

from scoring.models import Study
from scoring.studies import StudyError, progress_line, study_progress, study_start


class Command(BaseCommand):
    help = (
        "Start or continue study NAME: renders, predicts and judges what is missing (cached "
        "results are reused; runs that exist under the study's names are adopted as they are); "
        "--wait follows it to the end."
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

    def _start(self, study, *, retry=False, following=False) -> dict:
        try:
            started = study_start(study=study, retry=retry)
        except StudyError as exc:
            raise CommandError(str(exc)) from None
        lines = [f"started {kind[:-1]} run {n}" for kind in ("predictions", "judges")
                 for n in started[kind]]  # fmt: skip
        lines += [f"adopted run {n} as it is (--retry resumes it)" for n in started["adopted"]]
        for line in lines:
            if following:  # below the progress line that --wait keeps rewriting
                self.stderr.write("\n" + line, ending="")
            else:
                self.stdout.write(line)
        return started

    def handle(self, *args, **o):
        study = Study.objects.filter(name=o["name"]).first()
        if study is None:
            raise CommandError(f"no study {o['name']!r} (manage.py study_create)")
        started = self._start(study, retry=o["retry"])
        progress = study_progress(study)
        # Each look decides on one consistent state: study_start reports whether a run still
        # works, read so that a run finishing during the advance is never taken for a stall.
        while o["wait"] and progress["stage"] != "complete":
            if not started["running"]:
                self.stderr.write("")
                raise CommandError(
                    f"{progress_line(progress)}\nnothing is running but the study is not "
                    "complete (failed media or runs to resume): see manage.py run_show, or "
                    "study_run --retry"
                )
            self.stderr.write("\r" + progress_line(progress), ending="")
            time.sleep(o["poll"])
            started = self._start(study, following=True)
            progress = study_progress(study)
        if o["wait"]:
            self.stderr.write("")
        if o["json"]:
            self.stdout.write(json.dumps(progress, indent=2))
        else:
            self.stdout.write(progress_line(progress))

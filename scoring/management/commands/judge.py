from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scoring.judges import judge_start
from scoring.management.commands import _lookup
from scoring.management.commands._progress import bar, wait
from scoring.runs import RunError
from scoring.runs.progress import run_progress


def _campaign(name: str):
    from review.campaigns.models import Campaign

    campaign = Campaign.objects.filter(name=name).first()
    if campaign is None:
        raise CommandError(f"no campaign named {name}")
    return campaign


class Command(BaseCommand):
    help = (
        "Start judge run NAME over the candidates of one or more prediction runs (or, for the QA "
        "judge, a JSON Lines file of answers); the same command again resumes it."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--run", action="append", default=[], help="may be given several times")
        parser.add_argument("--kind", required=True, choices=["reference", "video", "rater", "qa"])
        parser.add_argument("--endpoint", required=True)
        parser.add_argument("--package", required=True, help="name, name@version or SHA-256")
        parser.add_argument("--qa-file", help="QA judge: uid, question, reference_answer, answer")
        parser.add_argument(
            "--campaign", help="reference judge: score a human-baseline campaign's answers"
        )
        parser.add_argument(
            "--unit",
            choices=["candidate", "step"],
            default="candidate",
            help="reference and video judges: one candidate per call, or a step's candidates",
        )
        parser.add_argument("--seed", type=int, default=0, help="of the anonymising shuffle")
        parser.add_argument("--batch-size", type=int, default=15, help="blind rater: 10-20")
        parser.add_argument("--condition", default="official", help="video judge: its media")
        parser.add_argument("--wait", action="store_true")
        parser.add_argument("--retry-failed", action="store_true")

    def handle(self, *args, **o):
        try:
            run = judge_start(
                name=o["name"],
                kind=o["kind"],
                endpoint=_lookup.endpoint(o["endpoint"]),
                package=_lookup.package(o["package"]),
                runs=[_lookup.run(name) for name in o["run"]],
                qa_file=Path(o["qa_file"]) if o["qa_file"] else None,
                campaign=_campaign(o["campaign"]) if o["campaign"] else None,
                unit=o["unit"],
                seed=o["seed"],
                batch_size=o["batch_size"],
                condition=o["condition"],
                retry_failed=o["retry_failed"],
            )
        except RunError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"run {run.name}: {bar(run_progress(run))}")
        if o["wait"]:
            progress = wait(run, stream=self.stderr)
            self.stdout.write(f"run {run.name} {progress['status']}: {bar(progress)}")

from django.core.management.base import BaseCommand, CommandError

from review.models import Manifest
from scoring.management.commands import _lookup
from scoring.management.commands._progress import report_started
from scoring.qa.runs import MEDIA, OLD_NAMES, qa_predict
from scoring.runs import RunError


class Command(BaseCommand):
    help = (
        "Start QA run NAME: every sampled group of a frozen QA manifest asked as a dialogue, "
        "turn by turn, each turn seeing the model's own earlier answers; the same command "
        "again resumes it (ok turns are never asked again)."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--manifest", required=True, help="a frozen QA manifest")
        parser.add_argument("--endpoint", required=True)
        parser.add_argument("--package", required=True, help="name, name@version or SHA-256")
        parser.add_argument(
            "--media",
            required=True,
            choices=[*MEDIA, *OLD_NAMES],
            help="full (picture and sound), visual_only, audio_only or text_only; the media "
            "window (the group's clip or the turn's evidence) is the package's media_window "
            "(clip: the old name of visual_only)",
        )
        parser.add_argument("--wait", action="store_true", help="show progress until done")
        parser.add_argument(
            "--retry-failed",
            action="store_true",
            help="also ask parse failures and refusals again",
        )

    def handle(self, *args, **o):
        manifest = Manifest.objects.filter(name=o["manifest"]).first()
        if manifest is None:
            raise CommandError(f"no manifest named {o['manifest']}")
        try:
            run = qa_predict(
                name=o["name"],
                manifest=manifest,
                endpoint=_lookup.endpoint(o["endpoint"]),
                package=_lookup.package(o["package"]),
                media=o["media"],
                retry_failed=o["retry_failed"],
            )
        except RunError as exc:
            raise CommandError(str(exc)) from None
        report_started(run, wait_for_it=o["wait"], stdout=self.stdout, stderr=self.stderr)

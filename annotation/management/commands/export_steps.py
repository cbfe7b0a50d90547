import sys

from django.core.management.base import BaseCommand, CommandError

from annotation.jsonl import write_export
from annotation.models import MicroStep


class Command(BaseCommand):
    help = "Export micro-steps as JSON Lines (docs/steps-jsonl.md)."

    def add_arguments(self, parser):
        parser.add_argument("-o", "--output", default="-", help="file to write, - for stdout")
        parser.add_argument(
            "--video",
            action="append",
            default=[],
            help="only this video (SHA-256); may be repeated",
        )
        parser.add_argument("--include-retracted", action="store_true")

    def handle(self, *args, output: str, video: list[str], include_retracted: bool, **options):
        steps = MicroStep.objects.all()
        if video:
            steps = steps.filter(video__sha256__in=video)
        if not include_retracted:
            steps = steps.filter(status=MicroStep.Status.ACTIVE)
        if output == "-":
            count = write_export(sys.stdout, steps=steps)
        else:
            try:
                with open(output, "w", encoding="utf-8", newline="\n") as out:
                    count = write_export(out, steps=steps)
            except OSError as exc:
                raise CommandError(f"cannot write {output}: {exc.strerror}") from None
        self.stderr.write(f"exported {count} step(s)")

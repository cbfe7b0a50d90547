from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scoring.models import Study
from scoring.reports.exports import study_export


class Command(BaseCommand):
    help = (
        "Write study NAME's predictions and judgements as JSON Lines, its report, and "
        "SHA256SUMS (check with: sha256sum -c SHA256SUMS) into FOLDER."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("folder", type=Path)

    def handle(self, *args, **o):
        study = Study.objects.filter(name=o["name"]).first()
        if study is None:
            raise CommandError(f"no study {o['name']!r}")
        for name, digest in study_export(study, o["folder"]).items():
            self.stdout.write(f"{digest}  {o['folder'] / name}")

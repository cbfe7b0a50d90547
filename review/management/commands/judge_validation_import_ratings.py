"""manage.py judge_validation_import_ratings NAME FILE.jsonl: load ratings made elsewhere into
a judge-validation campaign, all or nothing (docs/judge-validation.md, "Import format")."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from review.campaigns.models import Campaign
from review.judgeval.imports import ImportRefused, ratings_load, read_lines


class Command(BaseCommand):
    help = "Import judge-validation ratings (JSON Lines); nothing is written on any error."

    def add_arguments(self, parser):
        parser.add_argument("name", help="The campaign's name")
        parser.add_argument("file", help="A .jsonl file, one rating of one triplet per line")

    def handle(self, *args, name, file, **options):
        campaign = Campaign.objects.filter(name=name, kind="judge_validation").first()
        if campaign is None:
            raise CommandError(f"No judge_validation campaign named {name}.")
        path = Path(file)
        if not path.is_file():
            raise CommandError(f"No such file: {file}")
        try:
            lines = list(read_lines(path))
        except UnicodeDecodeError as exc:
            raise CommandError(f"{file} is not UTF-8 text: {exc}") from exc
        if not lines:
            raise CommandError(f"{file} holds no line to import.")
        try:
            counts = ratings_load(campaign=campaign, lines=lines, source=path.name)
        except ImportRefused as exc:
            shown = "\n".join(f"  line {n}: {m}" for n, m in exc.problems[:50])
            more = len(exc.problems) - 50
            tail = f"\n  … and {more} more" if more > 0 else ""
            raise CommandError(
                f"Nothing imported: {len(exc.problems)} problem(s) in {file}:\n{shown}{tail}"
            ) from exc
        self.stdout.write(
            f"Imported {counts['ratings']} rating(s) of {counts['steps']} rater-step pair(s) "
            f"into {name}."
        )

"""manage.py judge_validation_import_ratings NAME FILE.jsonl: load ratings made elsewhere into
a judge-validation campaign, all or nothing (docs/judge-validation.md, "Import format")."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from review.campaigns.models import Campaign
from review.judgeval.imports import ratings_load
from studio.jsonl import ImportRefused, Problems, json_lines


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
        problems = Problems()
        try:
            counts = ratings_load(
                campaign=campaign,
                lines=json_lines(path, problems=problems),
                problems=problems,
                source=path.name,
            )
        except ImportRefused as exc:
            raise CommandError(exc.report(file)) from exc
        self.stdout.write(
            f"Imported {counts['ratings']} rating(s) of {counts['steps']} rater-step pair(s) "
            f"into {name}."
        )

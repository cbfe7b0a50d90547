"""manage.py baseline_import_responses NAME FILE.jsonl: load human-baseline responses collected
elsewhere into a campaign, all or nothing (docs/baseline.md, "Bring your own data")."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from review.baseline.imports import responses_load
from review.baseline.kind import KIND
from review.campaigns.models import Campaign
from studio.jsonl import ImportRefused, Problems, json_lines


class Command(BaseCommand):
    help = "Import baseline responses (JSON Lines) into a campaign; nothing is written on error."

    def add_arguments(self, parser):
        parser.add_argument("name", help="The campaign's name")
        parser.add_argument("file", help="A .jsonl file, one rater and step per line")

    def handle(self, *args, name, file, **options):
        campaign = Campaign.objects.filter(name=name, kind=KIND).first()
        if campaign is None:
            raise CommandError(f"No human-baseline campaign named {name}.")
        path = Path(file)
        if not path.is_file():
            raise CommandError(f"No such file: {file}")
        problems = Problems()
        try:
            counts = responses_load(
                campaign=campaign,
                lines=json_lines(path, problems=problems),
                problems=problems,
                source=path.name,
            )
        except ImportRefused as exc:
            raise CommandError(exc.report(file)) from exc
        self.stdout.write(
            f"Imported {counts['responses']} response(s) ({counts['broken']} broken-item "
            f"flag(s)) into {name}."
        )

"""manage.py baseline_import_responses NAME FILE.jsonl: load human-baseline responses collected
elsewhere into a campaign, all or nothing (docs/baseline.md, "Bring your own data")."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from review.baseline.imports import ImportRefused, read_lines, responses_load
from review.baseline.kind import KIND
from review.campaigns.models import Campaign


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
        try:
            lines = list(read_lines(path))
        except UnicodeDecodeError as exc:
            raise CommandError(f"{file} is not UTF-8 text: {exc}") from exc
        if not lines:
            raise CommandError(f"{file} holds no line to import.")
        try:
            counts = responses_load(campaign=campaign, lines=lines, source=path.name)
        except ImportRefused as exc:
            shown = "\n".join(f"  line {n}: {m}" for n, m in exc.problems[:50])
            more = len(exc.problems) - 50
            tail = f"\n  … and {more} more" if more > 0 else ""
            raise CommandError(
                f"Nothing imported: {len(exc.problems)} problem(s) in {file}:\n{shown}{tail}"
            ) from exc
        self.stdout.write(
            f"Imported {counts['responses']} response(s) ({counts['broken']} broken-item "
            f"flag(s)) into {name}."
        )

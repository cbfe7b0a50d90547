"""manage.py audit_import_decisions NAME FILE.jsonl: load decisions and adjudications made
elsewhere into an audit campaign, all or nothing (docs/audit.md, "Import format")."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from review.audit.decisions import AUDIT
from review.audit.imports import decisions_load
from review.campaigns.models import Campaign
from studio.jsonl import ImportRefused, Problems, json_lines


class Command(BaseCommand):
    help = "Import audit decisions (JSON Lines) into a campaign; nothing is written on any error."
    kind, what, scheme = "audit", "audit", AUDIT  # boundary_import_decisions: the boundary's

    def add_arguments(self, parser):
        parser.add_argument("name", help="The campaign's name")
        parser.add_argument("file", help="A .jsonl file, one decision or adjudication per line")

    def handle(self, *args, name, file, **options):
        campaign = Campaign.objects.filter(name=name, kind=self.kind).first()
        if campaign is None:
            raise CommandError(f"No {self.what} campaign named {name}.")
        path = Path(file)
        if not path.is_file():
            raise CommandError(f"No such file: {file}")
        problems = Problems()
        try:
            counts = decisions_load(
                campaign=campaign,
                lines=json_lines(path, problems=problems),
                problems=problems,
                source=path.name,
                scheme=self.scheme,
            )
        except ImportRefused as exc:
            raise CommandError(exc.report(file)) from exc
        self.stdout.write(
            f"Imported {counts['decisions']} decision(s) in {counts['submissions']} "
            f"submission(s) and {counts['adjudications']} adjudication(s) into {name}."
        )

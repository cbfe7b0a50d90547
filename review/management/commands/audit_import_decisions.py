"""manage.py audit_import_decisions NAME FILE.jsonl: load decisions and adjudications made
elsewhere into an audit campaign, all or nothing (docs/audit.md, "Import format")."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from review.audit.decisions import AUDIT
from review.audit.imports import ImportRefused, decisions_load, read_lines
from review.campaigns.models import Campaign


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
        try:
            lines = list(read_lines(path))
        except UnicodeDecodeError as exc:
            raise CommandError(f"{file} is not UTF-8 text: {exc}") from exc
        if not lines:
            raise CommandError(f"{file} holds no line to import.")
        try:
            counts = decisions_load(
                campaign=campaign, lines=lines, source=path.name, scheme=self.scheme
            )
        except ImportRefused as exc:
            shown = "\n".join(f"  line {n}: {m}" for n, m in exc.problems[:50])
            more = len(exc.problems) - 50
            tail = f"\n  … and {more} more" if more > 0 else ""
            raise CommandError(
                f"Nothing imported: {len(exc.problems)} problem(s) in {file}:\n{shown}{tail}"
            ) from exc
        self.stdout.write(
            f"Imported {counts['decisions']} decision(s) in {counts['submissions']} "
            f"submission(s) and {counts['adjudications']} adjudication(s) into {name}."
        )

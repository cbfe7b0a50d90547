"""manage.py export_qa NAME FILE.jsonl: a QA group set in the import schema (canonical lines)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from review.qa.imports import qa_export_bytes
from review.qa.models import QaGroupSet


class Command(BaseCommand):
    help = "Export a QA group set as JSON Lines in the schema import_qa reads (docs/qa.md)."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("path", help="A new file ('-' writes to standard output)")

    def handle(self, *args, name, path, **options):
        group_set = QaGroupSet.objects.filter(name=name, frozen_at__isnull=False).first()
        if group_set is None:
            raise CommandError(f"No QA group set named {name}.")
        data = qa_export_bytes(group_set=group_set)
        if path == "-":
            self.stdout.buffer.write(data) if hasattr(self.stdout, "buffer") else self.stdout.write(
                data.decode("utf-8"), ending=""
            )
            return
        target = Path(path)
        if target.exists():
            raise CommandError(f"{path} exists; export writes a new file.")
        target.write_bytes(data)
        self.stdout.write(f"Wrote {group_set.sample_count} groups to {path}")

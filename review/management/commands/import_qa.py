"""manage.py import_qa FILE.jsonl --name NAME: QA groups in, frozen as a new QA group set."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from review.qa.imports import qa_import_file
from studio.jsonl import ImportRefused


class Command(BaseCommand):
    help = "Import QA groups (JSON Lines, docs/qa.md) as a frozen QA group set; all or nothing."

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--name", required=True, help="Name of the new group set version")
        parser.add_argument("--note", default="")
        parser.add_argument("--user", default=None, help="Who imports (a username)")

    def handle(self, *args, path, name, note, user, **options):
        author = None
        if user:
            author = get_user_model().objects.filter(username=user).first()
            if author is None:
                raise CommandError(f"No user named {user}.")
        try:
            group_set, moved = qa_import_file(path=path, name=name, author=author, note=note)
        except ImportRefused as exc:
            raise CommandError(exc.report(path)) from exc
        self.stdout.write(
            f"Imported {group_set.sample_count} QA groups as {group_set.name} "
            f"({moved} evidence times snapped to frames; "
            f"manifest SHA-256 {group_set.manifest_sha256})"
        )

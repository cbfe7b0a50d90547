import sys

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotation.jsonl import steps_import
from studio.jsonl import ImportRefused


class Command(BaseCommand):
    help = "Import micro-steps from a JSON Lines file (docs/steps-jsonl.md); all lines or none."

    def add_arguments(self, parser):
        parser.add_argument("file", help="a .jsonl file, or - for standard input")
        parser.add_argument("--author", help="user name recorded as the author of every step")
        parser.add_argument("--reason", default="imported", help="reason stored in revisions")

    def handle(self, *args, file: str, author: str | None, reason: str, **options):
        user = None
        if author:
            try:
                user = get_user_model().objects.get(username=author)
            except get_user_model().DoesNotExist:
                raise CommandError(f"no user named {author!r}") from None
        source = sys.stdin.buffer if file == "-" else file
        try:
            count = steps_import(source=source, author=user, reason=reason)
        except OSError as exc:
            raise CommandError(f"cannot read {file}: {exc.strerror}") from None
        except ImportRefused as exc:
            for message in exc.messages():
                self.stderr.write(f"{file}: {message}")
            raise CommandError(
                f"{exc.total:,} problem(s) in {file}; nothing was imported"
            ) from None
        self.stdout.write(self.style.SUCCESS(f"imported {count} step(s) from {file}"))

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotation.jsonl import ImportFailed, steps_import


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
        try:
            if file == "-":
                import sys

                count = steps_import(lines=sys.stdin, author=user, reason=reason)
            else:
                with open(file, encoding="utf-8") as fh:
                    count = steps_import(lines=fh, author=user, reason=reason)
        except OSError as exc:
            raise CommandError(f"cannot read {file}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise CommandError(f"{file} is not UTF-8 text; nothing was imported") from None
        except ImportFailed as exc:
            for error in exc.errors:
                self.stderr.write(f"{file}: {error}")
            raise CommandError(str(exc)) from None
        self.stdout.write(self.style.SUCCESS(f"imported {count} step(s) from {file}"))

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scoring.models import Purpose
from scoring.packages import PackageError, contract_schema, package_register


class Command(BaseCommand):
    help = "Register a prompt package file as the next version of its name (docs/models.md)."

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?")
        parser.add_argument(
            "--print-schema", choices=Purpose.values, help="print a purpose's output schema"
        )

    def handle(self, *args, **o):
        if o["print_schema"]:
            self.stdout.write(json.dumps(contract_schema(o["print_schema"]), indent=2))
            return
        if not o["file"]:
            raise CommandError("give a package FILE (or --print-schema PURPOSE)")
        try:
            row, created = package_register(path=Path(o["file"]).resolve())
        except PackageError as exc:
            raise CommandError(str(exc)) from None
        state = "registered" if created else "already registered"
        self.stdout.write(f"{row.name} v{row.version} {row.sha256} ({state})")

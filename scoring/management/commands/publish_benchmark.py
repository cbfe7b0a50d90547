"""manage.py publish_benchmark NAME OUT: a frozen release or manifest as a folder that runs as
shipped (docs/publishing.md)."""

import sys

from django.core.management.base import BaseCommand, CommandError

from scoring.publish.media import PublishError
from scoring.publish.services import DEFAULT_PACKAGE, benchmark_publish


class Command(BaseCommand):
    help = (
        "Publish the frozen release or manifest NAME into OUT (a new folder, or a new .zip with "
        "--zip): its rows (Parquet and JSON Lines), the media of each condition rendered and "
        "verified, a dataset card, the bundle with its hashes and lmms-eval and inspect_ai tasks."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", help="A frozen release or manifest")
        parser.add_argument("out", help="A new folder (or .zip file with --zip)")
        parser.add_argument(
            "--conditions",
            default="official",
            help="Comma-separated conditions whose media are shipped (default: official)",
        )
        parser.add_argument(
            "--package",
            default=DEFAULT_PACKAGE,
            help=f"The prediction package the tasks prompt with (default: {DEFAULT_PACKAGE})",
        )
        parser.add_argument("--zip", action="store_true", dest="as_zip")

    def handle(self, *args, name, out, conditions, package, as_zip, **options):
        def say(text: str) -> None:
            sys.stderr.write(text + "\n")

        try:
            published = benchmark_publish(
                name=name,
                out=out,
                conditions=conditions.split(","),
                package=package,
                as_zip=as_zip,
                say=say,
            )
        except PublishError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"Published {published.kind} {published.name} to {published.path}: "
            f"{published.steps} steps, conditions {', '.join(published.conditions)}, "
            f"{published.media_files} media files ({published.media_bytes:,} bytes), "
            f"{published.files} files, {published.total_bytes:,} bytes in all, "
            f"in {published.seconds:.1f} s\n"
            f"manifest SHA-256  {published.manifest_sha256}"
        )

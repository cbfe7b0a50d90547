"""manage.py import_benchmark PATH: load a published benchmark (folder or .zip)."""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from annotation.releases import BundleError
from scoring.publish.imports import benchmark_import


class Command(BaseCommand):
    help = (
        "Import a folder written by publish_benchmark (or its .zip): it is verified, its release "
        "(and manifest) must reproduce their hashes, and its media are stored by content."
    )

    def add_arguments(self, parser):
        parser.add_argument("path")

    def handle(self, *args, path, **options):
        try:
            imported = benchmark_import(path=path)
        except (ValidationError, BundleError) as exc:
            messages = exc.messages if isinstance(exc, ValidationError) else [str(exc)]
            raise CommandError("\n".join(messages)) from exc
        sealed = imported.manifest or imported.release
        what = "Imported" if imported.created else "Already imported:"
        self.stdout.write(
            f"{what} {imported.benchmark.kind} {sealed.name}: {sealed.sample_count} steps, "
            f"{imported.media_files} media files\n"
            f"sample list SHA-256  {sealed.sample_list_sha256}\n"
            f"manifest SHA-256     {sealed.manifest_sha256}"
        )

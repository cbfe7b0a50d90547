"""manage.py import_release PATH: load an exported release bundle as a frozen release."""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from annotation.releases import BundleError, release_import


class Command(BaseCommand):
    help = (
        "Import a release bundle (directory or .zip). It is verified first and must reproduce its "
        "hashes; source videos are referenced by SHA-256 and need not be present."
    )

    def add_arguments(self, parser):
        parser.add_argument("path")

    def handle(self, *args, path, **options):
        try:
            release = release_import(path=path)
        except (ValidationError, BundleError) as exc:
            messages = exc.messages if isinstance(exc, ValidationError) else [str(exc)]
            raise CommandError("\n".join(messages)) from exc
        self.stdout.write(
            f"Release {release.name}: {release.sample_count} steps\n"
            f"sample list SHA-256  {release.sample_list_sha256}\n"
            f"manifest SHA-256     {release.manifest_sha256}"
        )

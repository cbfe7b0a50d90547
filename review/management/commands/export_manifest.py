"""manage.py export_manifest NAME PATH: write a frozen manifest's bundle (directory or --zip)."""

from django.core.management.base import BaseCommand, CommandError

from annotation.releases import BundleError
from review.manifests.services import manifest_export
from review.models import Manifest


class Command(BaseCommand):
    help = "Export a frozen sample manifest as a bundle (same layout as a release bundle)."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("path", help="A new directory (or .zip file with --zip)")
        parser.add_argument("--zip", action="store_true", dest="as_zip")

    def handle(self, *args, name, path, as_zip, **options):
        manifest = Manifest.objects.filter(name=name, frozen_at__isnull=False).first()
        if manifest is None:
            raise CommandError(f"No frozen manifest named {name}.")
        try:
            manifest_export(manifest=manifest, path=path, as_zip=as_zip)
        except BundleError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"Wrote {path} (manifest SHA-256 {manifest.manifest_sha256})")

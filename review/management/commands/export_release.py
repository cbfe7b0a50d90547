"""manage.py export_release NAME PATH: write a release's bundle (directory or --zip)."""

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Release
from annotation.releases import BundleError, release_export


class Command(BaseCommand):
    help = (
        "Export a frozen release as a bundle: manifest.json, samples.txt, annotations.jsonl, "
        "steps.csv and SHA256SUMS."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("path", help="A new directory (or .zip file with --zip)")
        parser.add_argument("--zip", action="store_true", dest="as_zip")

    def handle(self, *args, name, path, as_zip, **options):
        release = Release.objects.filter(name=name, frozen_at__isnull=False).first()
        if release is None:
            raise CommandError(f"No frozen release named {name}.")
        try:
            release_export(release=release, path=path, as_zip=as_zip)
        except BundleError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"Wrote {path} (manifest SHA-256 {release.manifest_sha256})")

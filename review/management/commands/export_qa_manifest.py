"""manage.py export_qa_manifest NAME DIR: a QA-review manifest's bundle (docs/qa.md)."""

from django.core.management.base import BaseCommand, CommandError

from review.models import Kind, Manifest
from review.qa.sampling import qa_manifest_export


class Command(BaseCommand):
    help = "Export a QA-review manifest: manifest.json, samples.txt, groups.jsonl, SHA256SUMS."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("path", help="A new directory")

    def handle(self, *args, name, path, **options):
        manifest = Manifest.objects.filter(
            name=name, kind=Kind.QA_REVIEW, frozen_at__isnull=False, release__isnull=True
        ).first()
        if manifest is None:
            raise CommandError(f"No QA-review manifest named {name}.")
        try:
            qa_manifest_export(manifest=manifest, path=path)
        except FileExistsError:
            raise CommandError(f"{path} exists; the bundle goes into a new directory.") from None
        self.stdout.write(f"Wrote {path} (manifest SHA-256 {manifest.manifest_sha256})")

"""manage.py verify_manifest PATH: recompute every hash of an exported bundle."""

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Release
from annotation.releases import BundleError, bundle_verify
from review.models import Manifest


class Command(BaseCommand):
    help = (
        "Recompute every SHA-256 of a release or manifest bundle (directory or .zip) and name each "
        "mismatch; exits non-zero when anything differs. A release or manifest of the same name "
        "in this database is compared too."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="Bundle directory or .zip")

    def handle(self, *args, path, **options):
        try:
            report = bundle_verify(path)
        except BundleError as exc:
            raise CommandError(str(exc)) from exc
        problems = list(report.problems)
        manifest = report.manifest or {}
        name = manifest.get("name")
        model = Release if manifest.get("kind") == "release" else Manifest
        stored = model.objects.filter(name=name, frozen_at__isnull=False).first() if name else None
        if stored is not None and stored.manifest_sha256 != report.manifest_sha256:
            problems.append(
                f"manifest.json: SHA-256 is {report.manifest_sha256}, but {model.__name__.lower()} "
                f"{name} in this database was frozen with {stored.manifest_sha256}"
            )
        for problem in problems:
            self.stderr.write(f"MISMATCH {problem}")
        if problems:
            raise CommandError(f"{len(problems)} mismatch(es) in {path}")
        self.stdout.write(
            f"OK {manifest.get('kind')} {name}: {report.sample_count} samples\n"
            f"sample list SHA-256  {report.sample_list_sha256}\n"
            f"manifest SHA-256     {report.manifest_sha256}"
            + (f"\nmatches the {model.__name__.lower()} in this database" if stored else "")
        )

"""manage.py freeze_manifest NAME --release R --kind K --method M --seed S [--params JSON]:
draw a sample design over a frozen release and freeze it as a manifest, printing both hashes."""

import json

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from annotation.models import Release
from review.manifests.services import design_create, manifest_freeze
from review.models import Kind, Method


def _messages(exc: ValidationError) -> str:
    if hasattr(exc, "error_dict"):
        return "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
    return "; ".join(exc.messages)


class Command(BaseCommand):
    help = "Freeze a sample design over a release as a manifest (design and manifest named NAME)."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--release", required=True, help="Name of a frozen release")
        parser.add_argument("--kind", required=True, choices=Kind.values)
        parser.add_argument("--method", required=True, choices=Method.values)
        parser.add_argument("--seed", required=True, type=int)
        parser.add_argument("--params", default="{}", help="Design parameters as a JSON object")
        parser.add_argument("--user", help="Username recorded as the one who froze it")

    def handle(self, *args, name, release, kind, method, seed, params, user, **options):
        try:
            parsed = json.loads(params)
        except json.JSONDecodeError as exc:
            raise CommandError(f"--params is not JSON: {exc}") from exc
        base = Release.objects.filter(name=release, frozen_at__isnull=False).first()
        if base is None:
            raise CommandError(f"No frozen release named {release}.")
        author = None
        if user:
            author = get_user_model().objects.filter(username=user).first()
            if author is None:
                raise CommandError(f"No user named {user}.")
        try:
            with transaction.atomic():
                design = design_create(
                    author=author, name=name, method=method, release=base, seed=seed,
                    params=parsed, kind=kind,
                )  # fmt: skip
                manifest = manifest_freeze(design=design, author=author, name=name)
        except ValidationError as exc:
            raise CommandError(_messages(exc)) from exc
        self.stdout.write(
            f"Frozen manifest {manifest.name}: {manifest.sample_count} samples of {base.name}\n"
            f"sample list SHA-256  {manifest.sample_list_sha256}\n"
            f"manifest SHA-256     {manifest.manifest_sha256}"
        )

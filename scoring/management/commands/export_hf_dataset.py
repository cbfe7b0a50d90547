from pathlib import Path

from django.core.management.base import BaseCommand

from scoring.management.commands import _lookup
from scoring.reports.hf_dataset import hf_dataset_export


class Command(BaseCommand):
    help = (
        "Write a frozen release (or manifest) as a Hugging Face datasets folder: data/test.jsonl "
        "and a dataset card with the set's hashes (datasets.load_dataset(FOLDER) loads it)."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path)
        parser.add_argument("--manifest")
        parser.add_argument("--release", help="the whole release instead of a manifest")

    def handle(self, *args, **o):
        release, manifest = _lookup.steps(manifest=o["manifest"], release=o["release"])
        result = hf_dataset_export(release=release, manifest=manifest, folder=o["folder"])
        self.stdout.write(
            f"{o['folder']}: {result['steps']} steps; data/test.jsonl SHA-256 "
            f"{result['data_sha256']}"
        )

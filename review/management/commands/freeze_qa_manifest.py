"""manage.py freeze_qa_manifest NAME --set SET --seed N --params JSON: draw complete QA groups
and freeze them as a qa_review manifest (docs/qa.md)."""

import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from review.qa.models import QaGroupSet
from review.qa.sampling import qa_manifest_freeze


class Command(BaseCommand):
    help = "Freeze a QA-review manifest of complete groups (seeded, without replacement)."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--set", required=True, dest="set_name", help="The QA group set")
        parser.add_argument("--seed", type=int, required=True)
        parser.add_argument("--params", required=True, help='e.g. {"n_groups": 50}')

    def handle(self, *args, name, set_name, seed, params, **options):
        group_set = QaGroupSet.objects.filter(name=set_name, frozen_at__isnull=False).first()
        if group_set is None:
            raise CommandError(f"No QA group set named {set_name}.")
        try:
            manifest = qa_manifest_freeze(
                group_set=group_set, name=name, seed=seed, params=json.loads(params), author=None
            )
        except json.JSONDecodeError as exc:
            raise CommandError(f"--params is not JSON: {exc.msg}") from None
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        self.stdout.write(
            f"Froze {manifest.name}: {manifest.sample_count} groups, "
            f"sample list SHA-256 {manifest.sample_list_sha256}, "
            f"manifest SHA-256 {manifest.manifest_sha256}"
        )

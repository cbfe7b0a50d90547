"""manage.py freeze_qa_manifest NAME --set SET --seed N (--params JSON | --from-list FILE): draw
complete QA groups, or take exactly those of a list, and freeze them as a qa_review manifest
(docs/qa.md)."""

import hashlib
import json
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from review.qa.models import QaGroupSet
from review.qa.sampling import qa_manifest_freeze, uids_design


def list_uids(data: bytes) -> list[str]:
    """The group uids of a list: JSON Lines whose objects name a ``group`` (an audit's filter
    list) or one uid a line; blank lines are skipped."""
    uids = []
    for n, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        if line.startswith("{"):
            try:
                group = json.loads(line).get("group")
            except (json.JSONDecodeError, AttributeError):
                group = None
            if not isinstance(group, str):
                raise CommandError(f'line {n}: a JSON line must name its group ("group": uid)')
            uids.append(group)
        else:
            uids.append(line)
    if not uids:
        raise CommandError("the list names no group")
    return uids


class Command(BaseCommand):
    help = "Freeze a QA-review manifest of complete groups (seeded, without replacement)."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--set", required=True, dest="set_name", help="The QA group set")
        parser.add_argument("--seed", type=int, required=True)
        parser.add_argument("--params", help='e.g. {"n_groups": 50}')
        parser.add_argument(
            "--from-list",
            metavar="FILE",
            help="exactly the groups of this list (an audit's filter list, or one uid a line)",
        )

    def handle(self, *args, name, set_name, seed, params, from_list, **options):
        if (params is None) == (from_list is None):
            raise CommandError("give --params or --from-list")
        group_set = QaGroupSet.objects.filter(name=set_name, frozen_at__isnull=False).first()
        if group_set is None:
            raise CommandError(f"No QA group set named {set_name}.")
        try:
            if from_list is not None:
                try:
                    data = Path(from_list).read_bytes()
                except OSError as exc:
                    raise CommandError(f"cannot read {from_list}: {exc.strerror}") from None
                design = uids_design(list_uids(data), list_sha256=hashlib.sha256(data).hexdigest())
            else:
                design = json.loads(params)
            manifest = qa_manifest_freeze(
                group_set=group_set, name=name, seed=seed, params=design, author=None
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

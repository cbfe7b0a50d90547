import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from annotation.models import Release
from scoring.judgeval.pool import judgeval_pool_freeze, judgeval_pool_preview, split_runs
from scoring.management.commands import _lookup


def _message(exc: ValidationError) -> str:
    if hasattr(exc, "error_dict"):
        return "; ".join(f"{k}: {' '.join(m for e in v for m in e.messages)}"
                         for k, v in exc.error_dict.items())  # fmt: skip
    return " ".join(exc.messages)


class Command(BaseCommand):
    help = (
        "Choose the balanced judge-validation triplets from prediction runs by the exact program "
        "(docs/judge-validation.md) and freeze them as a judge_validation manifest; --preview "
        "prints the counts without writing."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--release", required=True)
        parser.add_argument(
            "--runs", required=True, help="Prediction runs, comma-separated (closed and open)"
        )
        parser.add_argument("--seed", type=int, required=True)
        parser.add_argument("--params", default="{}", help="Constraint values as JSON")
        parser.add_argument("--preview", action="store_true")

    def handle(self, *args, **o):
        release = Release.objects.filter(name=o["release"], frozen_at__isnull=False).first()
        if release is None:
            raise CommandError(f"no frozen release {o['release']!r}")
        try:
            params = json.loads(o["params"])
        except json.JSONDecodeError as exc:
            raise CommandError(f"--params is not JSON: {exc.msg}") from None
        runs = [_lookup.run(n.strip()) for n in o["runs"].split(",") if n.strip()]
        closed, opened = split_runs(runs)
        try:
            if o["preview"]:
                counts = judgeval_pool_preview(
                    release=release, closed=closed, opened=opened, seed=o["seed"], params=params
                )
                self.stdout.write(json.dumps(counts, indent=2, sort_keys=True))
                return
            manifest = judgeval_pool_freeze(
                name=o["name"],
                release=release,
                closed=closed,
                opened=opened,
                seed=o["seed"],
                params=params,
            )
        except ValidationError as exc:
            raise CommandError(_message(exc)) from None
        self.stdout.write(
            f"froze {manifest.name}: {manifest.sample_count} steps, "
            f"{2 * manifest.sample_count} triplets, manifest sha256 {manifest.manifest_sha256}"
        )

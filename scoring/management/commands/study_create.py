import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scoring.management.commands import _lookup
from scoring.models import StudyTemplate
from scoring.studies import StudyError, study_create


class Command(BaseCommand):
    help = (
        "Create study NAME: models (--endpoint, repeated) under a template's conditions "
        "(boundary, evidence, history) or your own (--template custom --conditions a,b "
        "--contrasts FILE.json), judged by one reference judge."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--template", required=True, choices=StudyTemplate.values)
        parser.add_argument("--manifest")
        parser.add_argument("--release", help="the whole release instead of a manifest")
        parser.add_argument("--endpoint", action="append", required=True, dest="endpoints")
        parser.add_argument("--package", required=True, help="the prediction package")
        parser.add_argument("--judge-endpoint", required=True)
        parser.add_argument("--judge-package", default="reference-judge")
        parser.add_argument("--judge-unit", choices=["candidate", "step"], default="candidate")
        parser.add_argument("--judge-seed", type=int, default=0)
        parser.add_argument("--conditions", help="comma-separated; replaces the template's")
        parser.add_argument(
            "--contrasts", type=Path, help="JSON list of {name, a, b[, dimensions]}"
        )
        parser.add_argument("--common-set", choices=["pair", "study"])
        parser.add_argument("--replicates", type=int, default=2000)
        parser.add_argument("--seed", type=int, default=0, help="the bootstrap seed")

    def handle(self, *args, **o):
        release, manifest = _lookup.steps(manifest=o["manifest"], release=o["release"])
        contrasts = None
        if o["contrasts"]:
            try:
                contrasts = json.loads(o["contrasts"].read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise CommandError(f"{o['contrasts']}: {exc}") from None
        try:
            study = study_create(
                name=o["name"],
                template=o["template"],
                release=release,
                manifest=manifest,
                endpoints=[_lookup.endpoint(e) for e in o["endpoints"]],
                package=_lookup.package(o["package"]),
                judge_endpoint=_lookup.endpoint(o["judge_endpoint"]),
                judge_package=_lookup.package(o["judge_package"]),
                judge_unit=o["judge_unit"],
                judge_seed=o["judge_seed"],
                conditions=o["conditions"].split(",") if o["conditions"] else None,
                contrasts=contrasts,
                common_set=o["common_set"],
                replicates=o["replicates"],
                bootstrap_seed=o["seed"],
            )
        except StudyError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"study {study.name}: {len(study.conditions)} conditions x "
            f"{study.members.count()} models, {len(study.contrasts)} contrasts; "
            f"start it with: manage.py study_run {study.name}"
        )

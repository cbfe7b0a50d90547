from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scoring.judges.imports import judgements_import
from scoring.management.commands import _lookup
from scoring.runs import RunError
from studio.jsonl import ImportRefused


class Command(BaseCommand):
    help = (
        "Load judgements made elsewhere (JSON Lines in the run_export judgement format; each "
        "line's subject names a prediction of one of the --run) as finished judge run NAME."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("file", type=Path)
        parser.add_argument("--kind", choices=["reference", "video"], default="reference")
        parser.add_argument("--run", action="append", default=[], dest="runs")
        parser.add_argument(
            "--campaign", help="judgements of a human-baseline campaign's answers instead"
        )
        parser.add_argument("--endpoint", required=True, help="the judge's registered endpoint")
        parser.add_argument("--package", help="default: our package of the judge kind")

    def handle(self, *args, **o):
        default = {"reference": "reference-judge", "video": "video-judge"}[o["kind"]]
        try:
            if o["campaign"]:
                if o["runs"]:
                    raise RunError("give --campaign or --run, not both")
                from review.campaigns.models import Campaign
                from scoring.judges.human_imports import human_judgements_import

                campaign = Campaign.objects.filter(name=o["campaign"]).first()
                if campaign is None:
                    raise RunError(f"no campaign named {o['campaign']}")
                run = human_judgements_import(
                    name=o["name"],
                    path=o["file"],
                    campaign=campaign,
                    kind=o["kind"],
                    endpoint=_lookup.endpoint(o["endpoint"]),
                    package=_lookup.package(o["package"] or default),
                )
            elif not o["runs"]:
                raise RunError("name the prediction runs whose predictions were judged (--run)")
            else:
                run = judgements_import(
                    name=o["name"],
                    path=o["file"],
                    kind=o["kind"],
                    runs=[_lookup.run(r) for r in o["runs"]],
                    endpoint=_lookup.endpoint(o["endpoint"]),
                    package=_lookup.package(o["package"] or default),
                )
        except ImportRefused as exc:
            raise CommandError(exc.report(str(o["file"]))) from None
        except RunError as exc:
            raise CommandError(str(exc)) from None
        info = run.provenance["imported"]
        self.stdout.write(
            f"judge run {run.name}: {info['lines']} judgements imported; "
            f"unknown: {', '.join(info['unknown']) or 'nothing'}"
        )

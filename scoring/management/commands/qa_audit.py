"""manage.py qa_audit NAME (--text-only RUN ... | --manifest M --endpoint E ...) [--export FILE]
[--campaign C --people a,b]: the shortcut and modality audit of QA runs (docs/qa-evaluation.md,
"Audits")."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from review.models import Manifest
from scoring.management.commands import _lookup
from scoring.models import QaAudit
from scoring.qa.audits import (
    audit_campaign,
    filter_bytes,
    flagged_uids,
    qa_audit_create,
    runs_of_endpoints,
)
from scoring.runs import RunError

RUN_OPTIONS = {
    "full": "full",
    "text_only": "text_only",
    "visual_only": "visual_only",
    "audio_only": "audio_only",
}


class Command(BaseCommand):
    help = (
        "Audit QA runs of one manifest for language shortcuts, redundant and mislabelled "
        "modalities; or, for an existing audit, export its filter list or open a QA review "
        "campaign over its flagged groups."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        runs = parser.add_argument_group("the runs (one of each per model; a model = an endpoint)")
        for option, condition in RUN_OPTIONS.items():
            runs.add_argument(
                f"--{option.replace('_', '-')}",
                dest=option,
                action="append",
                default=[],
                metavar="RUN",
                help=f"a finished QA run made with media {condition}",
            )
        runs.add_argument(
            "--manifest", help="instead: pick the newest finished runs of this QA manifest ..."
        )
        runs.add_argument(
            "--endpoint", action="append", default=[], help="... of these endpoints (repeat)"
        )
        runs.add_argument(
            "--judge",
            action="append",
            default=[],
            metavar="RUN",
            help="the QA judge run to read for a run (default: its newest finished one)",
        )
        parser.add_argument(
            "--export", metavar="FILE", help="write the filter list (JSON Lines; - for stdout)"
        )
        parser.add_argument("--campaign", help="open a QA review campaign over the flagged groups")
        parser.add_argument("--campaign-manifest", help="its manifest's name (default NAME-flags)")
        parser.add_argument(
            "--people", default="", help="the campaign's reviewers, comma-separated"
        )
        parser.add_argument("--seed", type=int, default=0, help="the campaign's order seed")
        parser.add_argument("--user", help="username recorded as the author")

    def handle(self, *args, **o):
        user = None
        if o["user"]:
            user = get_user_model().objects.filter(username=o["user"]).first()
            if user is None:
                raise CommandError(f"no user named {o['user']}")
        given = {c: [_lookup.run(n) for n in o[c]] for c in RUN_OPTIONS if o[c]}
        if o["manifest"] or o["endpoint"]:
            if given:
                raise CommandError("give runs (--text-only ...) or --manifest with --endpoint")
            if not (o["manifest"] and o["endpoint"]):
                raise CommandError("--manifest and --endpoint go together")
            manifest = Manifest.objects.filter(name=o["manifest"]).first()
            if manifest is None:
                raise CommandError(f"no manifest named {o['manifest']}")
            try:
                given = runs_of_endpoints(
                    manifest=manifest, endpoints=[_lookup.endpoint(e) for e in o["endpoint"]]
                )
            except RunError as exc:
                raise CommandError(str(exc)) from None
        if given:
            try:
                audit = qa_audit_create(
                    name=o["name"],
                    runs=given,
                    judges=[_lookup.run(n) for n in o["judge"]],
                    user=user,
                )
            except RunError as exc:
                raise CommandError(str(exc)) from None
            counts = audit.result["counts"]
            self.stdout.write(
                f"Audit {audit.name} of {audit.manifest.name}: "
                f"{len(audit.result['groups'])} groups, {counts['any']} flagged "
                f"(language shortcut {counts['language_shortcut']}, redundant modality "
                f"{counts['redundant_modality']}, mislabelled modality "
                f"{counts['mislabelled_modality']}); filter list SHA-256 {audit.filter_sha256}"
            )
        else:
            audit = QaAudit.objects.filter(name=o["name"]).first()
            if audit is None:
                raise CommandError(
                    f"no audit named {o['name']}: give runs to make it (--text-only RUN ...)"
                )
        if o["export"]:
            data = filter_bytes(audit)
            if o["export"] == "-":
                self.stdout.write(data.decode("utf-8"), ending="")
            else:
                try:
                    with open(o["export"], "xb") as f:
                        f.write(data)
                except OSError as exc:
                    raise CommandError(f"cannot write {o['export']}: {exc.strerror}") from None
                self.stdout.write(
                    f"Wrote {len(flagged_uids(audit))} flagged group(s) to {o['export']}"
                )
        if o["campaign"]:
            names = [n.strip() for n in o["people"].split(",") if n.strip()]
            users = {u.username: u for u in get_user_model().objects.filter(username__in=names)}
            unknown = [n for n in names if n not in users]
            if unknown or not names:
                raise CommandError(
                    f"no user named {', '.join(unknown)}" if unknown else "--people is needed"
                )
            try:
                campaign = audit_campaign(
                    audit=audit,
                    manifest_name=o["campaign_manifest"] or f"{audit.name}-flags",
                    campaign_name=o["campaign"],
                    people=[users[n] for n in names],
                    seed=o["seed"],
                    author=user,
                )
            except ValidationError as exc:
                raise CommandError("; ".join(exc.messages)) from None
            self.stdout.write(
                f"Campaign {campaign.name} (QA review) over {campaign.manifest.name}: "
                f"{campaign.manifest.sample_count} flagged groups, {len(names)} people"
            )

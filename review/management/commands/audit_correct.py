"""manage.py audit_correct NAME --step UID --type TYPE [--cutoff-us N] [--at-us N] [--text T]
[--note WHY] [--user U]: one typed correction of an audited step, as on the corrections page;
manage.py audit_correct NAME --freeze RELEASE: freeze the corrected release (parent = the audited
release)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from review.audit.criteria import CORRECTION_CODES
from review.audit.services import corrected_release_freeze, correction_apply
from review.campaigns.models import Campaign, CampaignItem


class Command(BaseCommand):
    help = "Apply a typed audit correction, or freeze the corrected release."

    def add_arguments(self, parser):
        parser.add_argument("name", help="The audit campaign's name")
        parser.add_argument("--step", help="The step's uid (the manifest's sample_id)")
        parser.add_argument("--type", choices=CORRECTION_CODES, dest="kind")
        parser.add_argument("--cutoff-us", type=int, help="move_cutoff: the new cutoff")
        parser.add_argument("--at-us", type=int, help="split_step: where to split")
        parser.add_argument("--text", help="revise_*: the new text; add_plausible: the action")
        parser.add_argument("--note", default="", help="Why (goes into the revision's reason)")
        parser.add_argument("--freeze", metavar="RELEASE", help="Freeze the corrected release")
        parser.add_argument("--user", help="Author (default: the first superuser)")

    def handle(self, *args, name, step, kind, cutoff_us, at_us, text, note, freeze, user, **o):
        campaign = Campaign.objects.filter(name=name, kind="audit").first()
        if campaign is None:
            raise CommandError(f"No audit campaign named {name}.")
        users = get_user_model().objects
        author = users.filter(username=user).first() if user else users.filter(
            is_superuser=True).order_by("pk").first()  # fmt: skip
        if author is None:
            raise CommandError("No such user; name one with --user.")
        try:
            if freeze:
                release = corrected_release_freeze(campaign=campaign, name=freeze, author=author)
                self.stdout.write(
                    f"Froze {release.name} (parent {campaign.manifest.release.name}): "
                    f"samples {release.sample_list_sha256}, manifest {release.manifest_sha256}"
                )
                return
            if not step or not kind:
                raise CommandError("Give --step and --type (or --freeze RELEASE).")
            item = CampaignItem.objects.filter(campaign=campaign, sample__sample_id=step).first()
            if item is None:
                raise CommandError(f"Step {step} is not in campaign {name}.")
            values = {k: v for k, v in (("cutoff_us", cutoff_us), ("at_us", at_us),
                                        ("text", text)) if v is not None}  # fmt: skip
            correction = correction_apply(campaign=campaign, item=item, author=author,
                                          kind=kind, values=values, note=note)  # fmt: skip
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from exc
        self.stdout.write(
            f"Applied {kind} to step {step} (revision {correction.revision.version})."
        )

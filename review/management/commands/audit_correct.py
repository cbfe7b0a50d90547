"""manage.py audit_correct NAME --step UID --type TYPE [--cutoff TIME] [--at TIME] [--text T]
[--note WHY] [--user U]: one typed correction of an audited step, as on the corrections page
(TIME as there: 13.2, 0:13.200 or #396, snapped to the source's frames; --cutoff-us and --at-us
take microseconds); the author is an adjudicator or an admin;
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
        parser.add_argument("--cutoff", help="move_cutoff: the new cutoff (13.2, 0:13.200, #396)")
        parser.add_argument("--at", help="split_step: where to split (13.2, 0:13.200, #396)")
        parser.add_argument("--cutoff-us", type=int, help="move_cutoff: the new cutoff in µs")
        parser.add_argument("--at-us", type=int, help="split_step: where to split, in µs")
        parser.add_argument("--text", help="revise_*: the new text; add_plausible: the action")
        parser.add_argument("--note", default="", help="Why (goes into the revision's reason)")
        parser.add_argument("--freeze", metavar="RELEASE", help="Freeze the corrected release")
        parser.add_argument("--user", help="Author (default: the first superuser)")

    def handle(self, *args, name, step, kind, cutoff_us, at_us, text, note, freeze, user, **o):
        typed = {"cutoff_us": o.get("cutoff"), "at_us": o.get("at")}
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
            values.update(_times(item, {k: v for k, v in typed.items() if v is not None}))
            correction = correction_apply(campaign=campaign, item=item, author=author,
                                          kind=kind, values=values, note=note)  # fmt: skip
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from exc
        self.stdout.write(
            f"Applied {kind} to step {step} (revision {correction.revision.version})."
        )


def _times(item, typed: dict) -> dict:
    """Times typed as on the corrections page, read on the step's source video."""
    from annotation.models import MicroStep
    from studio.display import parse_timecode

    if not typed:
        return {}
    step = (
        MicroStep.objects.select_related("video")
        .filter(pk=item.sample.release_step.step_id)
        .first()
    )
    if step is None:
        raise CommandError("This step is not on this instance (the release was imported).")
    times = step.video.frame_times_us()
    out = {}
    for key, text in typed.items():
        try:
            out[key] = parse_timecode(
                text, frame_times_us=times, duration_us=step.video.duration_us
            )
        except ValueError as exc:
            raise CommandError(f"--{key.removesuffix('_us')}: {exc}") from exc
    return out

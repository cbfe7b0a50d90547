"""manage.py campaign_create NAME --kind K --manifest M --people a,b,c [--per-item N] [--seed S]."""

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from review.campaigns.services import campaign_create
from review.management.commands.freeze_manifest import _messages
from review.models import Manifest


class Command(BaseCommand):
    help = "Open a campaign of one kind over a frozen manifest for the named people."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--kind", required=True, help="A registered campaign kind")
        parser.add_argument("--manifest", required=True, help="Name of a frozen manifest")
        parser.add_argument("--people", required=True, help="Usernames, comma-separated")
        parser.add_argument("--per-item", type=int, help="Distinct people per item")
        parser.add_argument("--seed", type=int, help="Order seed (default: the manifest's)")
        parser.add_argument("--instructions", default="")
        parser.add_argument("--lease-seconds", type=int)
        parser.add_argument("--user", help="Username recorded as the one who created it")

    def handle(self, *args, **o):
        manifest = Manifest.objects.filter(name=o["manifest"], frozen_at__isnull=False).first()
        if manifest is None:
            raise CommandError(f"No frozen manifest named {o['manifest']}.")
        names = [n.strip() for n in o["people"].split(",") if n.strip()]
        users = {u.username: u for u in get_user_model().objects.filter(username__in=names)}
        unknown = [n for n in names if n not in users]
        if unknown:
            raise CommandError(f"No user named {', '.join(unknown)}.")
        author = None
        if o["user"]:
            author = get_user_model().objects.filter(username=o["user"]).first()
            if author is None:
                raise CommandError(f"No user named {o['user']}.")
        try:
            campaign = campaign_create(
                name=o["name"],
                kind=o["kind"],
                manifest=manifest,
                people=[users[n] for n in names],
                per_item=o["per_item"],
                seed=o["seed"],
                instructions=o["instructions"],
                lease_seconds=o["lease_seconds"],
                author=author,
            )
        except ValidationError as exc:
            raise CommandError(_messages(exc)) from exc
        items = campaign.items.count()
        excluded = campaign.exclusions.count()
        self.stdout.write(
            f"Campaign {campaign.name} ({campaign.kind}) over {manifest.name}: {items} items, "
            f"{campaign.per_item} per item, {len(names)} people, seed {campaign.seed}, "
            f"{excluded} exclusion(s)"
        )

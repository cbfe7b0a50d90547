"""manage.py baseline_export_responses NAME [-o FILE]: the campaign's current responses in the
import format (standard output by default)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from review.baseline.imports import responses_export
from review.baseline.kind import KIND
from review.campaigns.models import Campaign


class Command(BaseCommand):
    help = "Export a human-baseline campaign's responses as JSON Lines (the import format)."

    def add_arguments(self, parser):
        parser.add_argument("name", help="The campaign's name")
        parser.add_argument("-o", "--output", help="Write to this file instead of standard output")

    def handle(self, *args, name, output, **options):
        campaign = Campaign.objects.filter(name=name, kind=KIND).first()
        if campaign is None:
            raise CommandError(f"No human-baseline campaign named {name}.")
        lines = (
            json.dumps(line, ensure_ascii=False) + "\n"
            for line in responses_export(campaign=campaign)
        )
        if output:
            with open(output, "w", encoding="utf-8") as handle:
                handle.writelines(lines)
        else:
            for line in lines:
                self.stdout.write(line, ending="")

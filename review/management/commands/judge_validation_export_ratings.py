"""manage.py judge_validation_export_ratings NAME [-o FILE]: the campaign's current ratings in
the import format (standard output by default)."""

from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandError

from review.campaigns.models import Campaign
from review.judgeval.imports import ratings_export


class Command(BaseCommand):
    help = "Export a judge-validation campaign's ratings as JSON Lines (the import format)."

    def add_arguments(self, parser):
        parser.add_argument("name", help="The campaign's name")
        parser.add_argument("-o", "--output", help="Write to this file instead of standard output")

    def handle(self, *args, name, output, **options):
        campaign = Campaign.objects.filter(name=name, kind="judge_validation").first()
        if campaign is None:
            raise CommandError(f"No judge_validation campaign named {name}.")
        lines = [
            json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n"
            for line in ratings_export(campaign=campaign)
        ]
        if output:
            with open(output, "w", encoding="utf-8") as handle:
                handle.writelines(lines)
        else:
            sys.stdout.writelines(lines)

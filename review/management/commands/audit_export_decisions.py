"""manage.py audit_export_decisions NAME [-o FILE]: the campaign's current decisions and
adjudications in the import format (standard output by default)."""

from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandError

from review.audit.decisions import AUDIT
from review.audit.imports import decisions_export
from review.campaigns.models import Campaign


class Command(BaseCommand):
    help = "Export an audit campaign's decisions as JSON Lines (the import format)."
    kind, what, scheme = "audit", "audit", AUDIT  # boundary_export_decisions: the boundary's

    def add_arguments(self, parser):
        parser.add_argument("name", help="The campaign's name")
        parser.add_argument("-o", "--output", help="Write to this file instead of standard output")

    def handle(self, *args, name, output, **options):
        campaign = Campaign.objects.filter(name=name, kind=self.kind).first()
        if campaign is None:
            raise CommandError(f"No {self.what} campaign named {name}.")
        lines = (
            json.dumps(line, ensure_ascii=False) + "\n"
            for line in decisions_export(campaign=campaign, scheme=self.scheme)
        )
        if output:
            with open(output, "w", encoding="utf-8") as handle:
                handle.writelines(lines)
        else:
            out = self.stdout if self.stdout else sys.stdout
            for line in lines:
                out.write(line, ending="")

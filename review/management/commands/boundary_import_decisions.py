"""manage.py boundary_import_decisions NAME FILE.jsonl: load window decisions and adjudications
made elsewhere into a boundary campaign, all or nothing (docs/boundary-audit.md)."""

from review.boundary.kind import KIND, SCHEME
from review.management.commands.audit_import_decisions import Command as AuditImport


class Command(AuditImport):
    help = (
        "Import boundary decisions (JSON Lines) into a campaign; nothing is written on any error."
    )
    kind, what, scheme = KIND, "boundary audit", SCHEME

"""manage.py boundary_export_decisions NAME [-o FILE]: a boundary campaign's current window
decisions and adjudications in the import format (standard output by default)."""

from review.boundary.kind import KIND, SCHEME
from review.management.commands.audit_export_decisions import Command as AuditExport


class Command(AuditExport):
    help = "Export a boundary campaign's decisions as JSON Lines (the import format)."
    kind, what, scheme = KIND, "boundary audit", SCHEME

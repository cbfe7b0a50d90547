"""manage.py boundary_report NAME [--format json|csv] [-o FILE]: the boundary audit report of a
campaign (docs/boundary-audit.md): unrounded JSON, or one CSV table."""

from review.boundary.kind import KIND
from review.management.commands.audit_report import Command as AuditReport


class Command(AuditReport):
    help = "Print the boundary audit report of a campaign as JSON or CSV."
    kind, what = KIND, "boundary audit"

    def compute(self, campaign) -> tuple[dict, str]:
        from review.boundary.report import report_csv
        from review.boundary.reporting import campaign_report

        report = campaign_report(campaign)
        return report, report_csv(report)

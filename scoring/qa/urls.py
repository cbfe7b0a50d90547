from django.urls import path

from scoring.qa import audit_views, report_views, run_views, views

urlpatterns = [
    path("qa-reports/", views.qa_report_list, name="qa-reports"),
    path("qa-reports/<int:campaign_id>/", views.qa_report_page, name="qa-report"),
    path("runs/qa/", run_views.qa_run_start, name="qa-run-start"),
    path("runs/qa/report/", report_views.qa_run_report, name="qa-run-report"),
    path(
        "runs/qa/report/charts/<slug:name>.<slug:fmt>",
        report_views.qa_run_report_chart,
        name="qa-run-report-chart",
    ),
    path("qa-audits/", audit_views.qa_audit_list, name="qa-audits"),
    path("qa-audits/<int:audit_id>/", audit_views.qa_audit_page, name="qa-audit"),
    path(
        "qa-audits/<int:audit_id>/campaign/",
        audit_views.qa_audit_campaign,
        name="qa-audit-campaign",
    ),
]

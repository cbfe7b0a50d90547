from django.urls import path

from scoring.qa import run_views, views

urlpatterns = [
    path("qa-reports/", views.qa_report_list, name="qa-reports"),
    path("qa-reports/<int:campaign_id>/", views.qa_report_page, name="qa-report"),
    path("runs/qa/", run_views.qa_run_start, name="qa-run-start"),
]

from django.urls import path

from scoring.baseline import views

urlpatterns = [
    path("baselines/", views.baseline_list, name="baseline-list"),
    path(
        "baselines/<int:campaign_id>/report/",
        views.baseline_report_page,
        name="baseline-report",
    ),
    path("baselines/<int:campaign_id>/judge/", views.baseline_judge, name="baseline-judge"),
]

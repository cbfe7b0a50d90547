from django.urls import path

from scoring.reports import views

urlpatterns = [
    path("studies/<int:study_id>/report/", views.study_report_page, name="study-report"),
    path(
        "studies/<int:study_id>/report.<slug:fmt>",
        views.study_report_download,
        name="study-report-download",
    ),
    path(
        "studies/<int:study_id>/charts/<slug:name>.<slug:fmt>",
        views.study_chart,
        name="study-chart",
    ),
    path("leaderboard/", views.leaderboard_page, name="leaderboard"),
    path(
        "leaderboard/charts/<slug:name>.<slug:fmt>",
        views.leaderboard_chart,
        name="leaderboard-chart",
    ),
]

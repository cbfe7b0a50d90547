from django.urls import path, re_path

from scoring import baseline_views, qa_views, study_views, views
from scoring.judgeval import views as judgeval_views

app_name = "scoring"

urlpatterns = [
    path("runs/", views.run_list, name="run-list"),
    path("runs/<int:run_id>/", views.run_detail, name="run-detail"),
    path("runs/<int:run_id>/progress/", views.run_progress_fragment, name="run-progress"),
    path("runs/<int:run_id>/items/<int:item_id>/", views.item_detail, name="item-detail"),
    path("runs/<int:run_id>/export.jsonl", views.run_export, name="run-export"),
    path("runs/<int:run_id>/judge/", views.run_judge, name="run-judge"),
    path("runs/<int:run_id>/<slug:action>/", views.run_action, name="run-action"),
    path("studies/", study_views.study_list, name="study-list"),
    path("studies/<int:study_id>/", study_views.study_detail, name="study-detail"),
    path(
        "studies/<int:study_id>/progress/",
        study_views.study_progress_fragment,
        name="study-progress",
    ),
    path("studies/<int:study_id>/run/", study_views.study_run, name="study-run"),
    path("studies/<int:study_id>/report/", study_views.study_report_page, name="study-report"),
    path(
        "studies/<int:study_id>/report.<slug:fmt>",
        study_views.study_report_download,
        name="study-report-download",
    ),
    path(
        "studies/<int:study_id>/charts/<slug:name>.<slug:fmt>",
        study_views.study_chart,
        name="study-chart",
    ),
    path("leaderboard/", study_views.leaderboard_page, name="leaderboard"),
    path("baselines/", baseline_views.baseline_list, name="baseline-list"),
    path(
        "baselines/<int:campaign_id>/report/",
        baseline_views.baseline_report_page,
        name="baseline-report",
    ),
    path(
        "baselines/<int:campaign_id>/judge/", baseline_views.baseline_judge, name="baseline-judge"
    ),
    path("judge-validation/", judgeval_views.judgeval_list, name="judgeval-list"),
    path(
        "judge-validation/<int:campaign_id>/judge/",
        judgeval_views.judgeval_judge,
        name="judgeval-judge",
    ),
    path(
        "judge-validation/<int:campaign_id>/",
        judgeval_views.judgeval_report_page,
        name="judgeval-report",
    ),
    path("qa-reports/", qa_views.qa_report_list, name="qa-reports"),
    path("qa-reports/<int:campaign_id>/", qa_views.qa_report_page, name="qa-report"),
    path(
        "leaderboard/charts/<slug:name>.<slug:fmt>",
        study_views.leaderboard_chart,
        name="leaderboard-chart",
    ),
    # Only the token: a model server fetching a clip learns nothing else from the URL.
    re_path(
        r"^model-media/(?P<token>[A-Za-z0-9_-]{20,64})$", views.model_media, name="model-media"
    ),
]

from django.urls import path

from scoring.judgeval import views

urlpatterns = [
    path("judge-validation/", views.judgeval_list, name="judgeval-list"),
    path(
        "judge-validation/<int:campaign_id>/",
        views.judgeval_report_page,
        name="judgeval-report",
    ),
    path(
        "judge-validation/<int:campaign_id>/judge/",
        views.judgeval_judge,
        name="judgeval-judge",
    ),
]

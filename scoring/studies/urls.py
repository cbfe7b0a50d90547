from django.urls import path

from scoring.studies import views

urlpatterns = [
    path("studies/", views.study_list, name="study-list"),
    path("studies/<int:study_id>/", views.study_detail, name="study-detail"),
    path(
        "studies/<int:study_id>/progress/",
        views.study_progress_fragment,
        name="study-progress",
    ),
    path("studies/<int:study_id>/run/", views.study_run, name="study-run"),
]

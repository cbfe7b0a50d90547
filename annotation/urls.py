from django.urls import include, path

from annotation import views

app_name = "annotation"

urlpatterns = [
    path("annotate/", views.video_list, name="video-list"),
    path("annotate/videos/<int:video_id>/", views.workspace, name="workspace"),
    path("annotate/steps/<int:step_id>/history/", views.step_history, name="step-history"),
    path("api/annotation/", include("annotation.api.urls")),
]

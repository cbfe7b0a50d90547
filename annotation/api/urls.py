from django.urls import path

from annotation.api import views

app_name = "api"

urlpatterns = [
    path("ping/", views.PingApi.as_view(), name="ping"),
    path("videos/<int:video_id>/workspace/", views.WorkspaceApi.as_view(), name="workspace"),
    path("videos/<int:video_id>/frame-times/", views.FrameTimesApi.as_view(), name="frame-times"),
    path("videos/<int:video_id>/source/", views.SourceApi.as_view(), name="source"),
    path("videos/<int:video_id>/steps/", views.StepCreateApi.as_view(), name="step-create"),
    path("steps/<int:step_id>/", views.StepApi.as_view(), name="step"),
    path("steps/<int:step_id>/retract/", views.StepRetractApi.as_view(), name="step-retract"),
    path("steps/<int:step_id>/restore/", views.StepRestoreApi.as_view(), name="step-restore"),
    path("steps/<int:step_id>/split/", views.StepSplitApi.as_view(), name="step-split"),
    path("steps/<int:step_id>/merge/", views.StepMergeApi.as_view(), name="step-merge"),
    path("steps/<int:step_id>/preview/", views.StepPreviewApi.as_view(), name="step-preview"),
    path("steps/<int:step_id>/history/", views.StepHistoryApi.as_view(), name="step-history"),
]

from django.urls import path, re_path

from scoring.runs import views

urlpatterns = [
    path("runs/", views.run_list, name="run-list"),
    path("runs/<int:run_id>/", views.run_detail, name="run-detail"),
    path("runs/<int:run_id>/progress/", views.run_progress_fragment, name="run-progress"),
    path("runs/<int:run_id>/items/<int:item_id>/", views.item_detail, name="item-detail"),
    path("runs/<int:run_id>/export.jsonl", views.run_export, name="run-export"),
    path("runs/<int:run_id>/<slug:action>/", views.run_action, name="run-action"),
    # Only the token: a model server fetching a clip learns nothing else from the URL.
    re_path(
        r"^model-media/(?P<token>[A-Za-z0-9_-]{20,64})$", views.model_media, name="model-media"
    ),
]

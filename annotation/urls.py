from django.urls import path

from annotation import views

app_name = "annotation"

urlpatterns = [
    path("annotate/", views.video_list, name="video-list"),
]

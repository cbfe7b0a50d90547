from django.urls import re_path

from media import views

app_name = "media"

# Only the token: no ids of steps, videos, media or conditions ever appear in a media URL.
urlpatterns = [
    re_path(r"^(?P<token>[A-Za-z0-9_-]{20,64})$", views.media_file, name="file"),
    re_path(
        r"^(?P<token>[A-Za-z0-9_-]{20,64})/(?P<position>[0-9]{2})\.png$",
        views.media_frame,
        name="frame",
    ),
]

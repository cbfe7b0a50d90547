"""The project's URLs plus one view that fails, to see the 500 page."""

from django.urls import path

from studio.urls import handler403, handler404  # noqa: F401
from studio.urls import urlpatterns as project_urls


def boom(request):
    raise RuntimeError("a bug")


urlpatterns = [path("boom/", boom), *project_urls]

"""The project's URLs plus one view that fails, to see the 500 page."""

from django.urls import path

from studio.urls import handler400, handler403, handler404, handler500  # noqa: F401
from studio.urls import urlpatterns as project_urls


def boom(request):
    raise RuntimeError("a bug")


urlpatterns = [path("boom/", boom), path("api/boom/", boom), *project_urls]

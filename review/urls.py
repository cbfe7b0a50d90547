"""API of releases, sample designs and manifests; mounted at api/review/ by studio/urls.py."""

from django.urls import path

from review import api

app_name = "review"

urlpatterns = [
    path("releases/", api.ReleaseListApi.as_view(), name="release-list"),
    path("releases/<int:release_id>/", api.ReleaseDetailApi.as_view(), name="release-detail"),
    path(
        "releases/<int:release_id>/download/",
        api.ReleaseDownloadApi.as_view(),
        name="release-download",
    ),
    path("designs/", api.DesignListApi.as_view(), name="design-list"),
    path("designs/<int:design_id>/", api.DesignDetailApi.as_view(), name="design-detail"),
    path("designs/<int:design_id>/preview/", api.DesignPreviewApi.as_view(), name="design-preview"),
    path("designs/<int:design_id>/freeze/", api.DesignFreezeApi.as_view(), name="design-freeze"),
    path("manifests/", api.ManifestListApi.as_view(), name="manifest-list"),
    path("manifests/<int:manifest_id>/", api.ManifestDetailApi.as_view(), name="manifest-detail"),
    path(
        "manifests/<int:manifest_id>/download/",
        api.ManifestDownloadApi.as_view(),
        name="manifest-download",
    ),
]

"""API of releases, designs, manifests and campaigns; mounted at api/review/ by studio/urls.py."""

from django.urls import path

from review.campaigns import api as campaigns
from review.manifests import api

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
    path("campaigns/<int:campaign_id>/claim/", campaigns.ClaimApi.as_view(), name="campaign-claim"),
    path(
        "campaigns/<int:campaign_id>/progress/",
        campaigns.ProgressApi.as_view(),
        name="campaign-progress",
    ),
    path("assignments/<str:token>/", campaigns.AssignmentApi.as_view(), name="assignment"),
    path("assignments/<str:token>/renew/", campaigns.RenewApi.as_view(), name="assignment-renew"),
    path(
        "assignments/<str:token>/release/",
        campaigns.ReleaseApi.as_view(),
        name="assignment-release",
    ),
    path("assignments/<str:token>/draft/", campaigns.DraftApi.as_view(), name="assignment-draft"),
    path(
        "assignments/<str:token>/submit/", campaigns.SubmitApi.as_view(), name="assignment-submit"
    ),
    path(
        "assignments/<str:token>/supersede/",
        campaigns.SupersedeApi.as_view(),
        name="assignment-supersede",
    ),
]

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from studio import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("m/", include("media.urls")),
    path("", include("annotation.urls")),
    path("api/review/", include("review.urls")),
    path("audit/", include("review.audit.urls")),
    path("baseline/", include("review.baseline.urls")),
    path("judgeval/", include("review.judgeval.urls")),
    path("boundary/", include("review.boundary.urls")),
    path("qa/", include("review.qa.urls")),
    path("review/", include("review.campaigns.urls")),
    path("", include("scoring.urls")),
]

handler400 = "studio.views.bad_request"
handler403 = "studio.views.permission_denied"
handler404 = "studio.views.page_not_found"
handler500 = "studio.views.server_error"  # JSON on API paths, templates/500.html elsewhere

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from studio.roles import ROLES, roles_of
from studio.services import health_report


@require_GET
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """Database, broker and a live worker; 503 when any of them is down."""
    report = health_report()
    return JsonResponse(report, status=200 if report["ok"] else 503)


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """Each role's entry points; a user with several roles sees each of them."""
    roles = [role for role in ROLES if role in roles_of(request.user)]
    return render(request, "studio/home.html", {"roles": roles})

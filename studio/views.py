from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from studio.home import ROLE_NAMES, home_cards_for
from studio.services import health_report


@require_GET
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """Database, broker and a live worker; 503 when any of them is down."""
    report = health_report()
    return JsonResponse(report, status=200 if report["ok"] else 503)


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """Per role the user holds, what to do next (studio.home); several roles, several cards."""
    cards = [
        {"card": card, "role_name": ROLE_NAMES[card.role]} for card in home_cards_for(request.user)
    ]
    return render(request, "studio/home.html", {"cards": cards})

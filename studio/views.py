from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from django.views.defaults import bad_request as django_bad_request
from django.views.defaults import server_error as django_server_error

from studio.api import api_error, is_api_request
from studio.health import health_report
from studio.home import ROLE_NAMES, home_cards_for


@require_GET
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """Database, broker and a live worker; 503 when any of them is down."""
    report = health_report()
    return JsonResponse(report, status=200 if report["ok"] else 503)


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask /favicon.ico on their own (the pages link the SVG); the static URL is looked
    up per request, so it follows collectstatic's hashed name in production."""
    return redirect(static("favicon.svg"))


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """Per role the user holds, what to do next (studio.home); several roles, several cards."""
    cards = [
        {"card": card, "role_name": ROLE_NAMES[card.role]} for card in home_cards_for(request.user)
    ]
    return render(request, "studio/home.html", {"cards": cards})


ERROR_TEXTS = {
    403: (
        "Not allowed",
        "Your role does not allow this. If you need it, ask an admin for the role that does.",
    ),
    404: (
        "Not found",
        "There is nothing here for you: the address is wrong, or what it names is not in your "
        "work. Your home page lists what is.",
    ),
    500: ("Something went wrong on our side", "The error was logged for the admins."),
}


def error_page(request: HttpRequest, status: int, text: str = "") -> HttpResponse:
    """The styled error page (templates/<status>.html), the same in development and production."""
    heading, default = ERROR_TEXTS[status]
    context = {"status": status, "heading": heading, "text": text or default}
    body = render_to_string(f"{status}.html", context, request=request)
    response = HttpResponse(body, status=status)
    response.studio_error_page = True
    return response


def page_not_found(request: HttpRequest, exception=None) -> HttpResponse:
    if is_api_request(request):  # e.g. /api/annotation/steps/abc/: no URL matches
        return api_error(404)
    return error_page(request, 404)


def permission_denied(request: HttpRequest, exception=None) -> HttpResponse:
    if is_api_request(request):
        return api_error(403)
    return error_page(request, 403)


def bad_request(request: HttpRequest, exception=None) -> HttpResponse:
    if is_api_request(request):
        return api_error(400)
    return django_bad_request(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """500: JSON on API paths; elsewhere Django's own view (templates/500.html, rendered without
    a request context, so a broken context processor cannot break the error page too)."""
    if is_api_request(request):
        return api_error(500)
    return django_server_error(request)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    return error_page(
        request,
        403,
        "The form was sent without its security token, often because the page was open for a "
        "long time or cookies are blocked. Go back, reload the page and send it again.",
    )

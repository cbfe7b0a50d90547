import logging
import secrets

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseServerError, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from django.views.defaults import bad_request as django_bad_request

from studio.api import ERROR_DETAILS, api_error, is_api_request
from studio.health import health_report
from studio.home import ROLE_NAMES, home_cards_for

logger = logging.getLogger("studio.errors")


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


def server_error_response(request: HttpRequest, exception=None, *, logged=False) -> HttpResponse:
    """The 500 answer. The error is logged with a new error id (the traceback goes to the log,
    never to the page; ``logged``: Django logged it already, the id is logged alone) and the
    answer names the id so an admin can find it: JSON on API paths, elsewhere templates/500.html,
    rendered without a request context so a broken context processor cannot break it too."""
    error_id = secrets.token_hex(6)
    if exception is not None:
        exc_info = (type(exception), exception, exception.__traceback__)
    else:
        exc_info = not logged  # inside Django's handler500 the exception is the current one
    logger.error(
        "Server error %s on %s %s", error_id, request.method, request.path, exc_info=exc_info
    )
    if is_api_request(request):
        response = api_error(500, f"{ERROR_DETAILS[500][:-1]} (error id {error_id}).")
    else:
        response = HttpResponseServerError(render_to_string("500.html", {"error_id": error_id}))
    response.studio_error_page = True
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's handler500 (an error outside the views, or the production path when no
    middleware answered first): the same answer as ``server_error_response``."""
    return server_error_response(request)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    return error_page(
        request,
        403,
        "The form was sent without its security token, often because the page was open for a "
        "long time or cookies are blocked. Go back, reload the page and send it again.",
    )

import functools
import re
import zoneinfo
from urllib.parse import unquote

from django.conf import settings
from django.utils import timezone

# Scripts and styles come only from our own static files: no inline script, no eval. Media is
# same-origin (served through the access check) and blob: for the frame-exact player.
DEFAULT_CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data: blob:",
        "media-src 'self' blob:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
        "form-action 'self'",
    ]
)


class ContentSecurityPolicyMiddleware:
    """Sends an enforced Content-Security-Policy on every response that has none yet."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.policy = getattr(settings, "CONTENT_SECURITY_POLICY", DEFAULT_CSP)

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", self.policy)
        return response


class DevelopmentErrorPagesMiddleware:
    """In development (DEBUG) too, a page that is not found or not allowed shows the styled
    error page rather than Django's technical one, so what people see while trying the product
    is what production shows. Server errors are ServerErrorMiddleware's (the technical page for a
    superuser only)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            settings.DEBUG
            and response.status_code in (403, 404)
            and not getattr(response, "studio_error_page", False)
            and response.get("Content-Type", "").startswith("text/html")
        ):
            from studio.api import api_error, is_api_request
            from studio.views import error_page

            if is_api_request(request):  # Django's technical 404 of an unmatched API URL
                return api_error(response.status_code)
            return error_page(request, response.status_code)
        return response


class ServerErrorMiddleware:
    """A server error shows its traceback and settings to nobody but a superuser, in any mode.

    With DEBUG on, Django answers an exception with its technical 500 page (traceback,
    settings) to whoever caused it. Here an exception that leaves a view is logged with an error
    id (the traceback goes to the log, logger ``studio.errors``) and answered with the styled 500
    page naming that id (JSON on API paths); only a superuser in development still gets Django's
    technical page. ``got_request_exception`` is still sent, so what listens to it (the test
    client) learns of the error. First in MIDDLEWARE: a technical page that another middleware's
    error produced is replaced on the way out too (Django logged that error already)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            settings.DEBUG
            and response.status_code == 500
            and not getattr(response, "studio_error_page", False)
            and not response.get("Content-Type", "").startswith("application/json")
            and not _is_superuser(request)
        ):
            from studio.views import server_error_response

            response = server_error_response(request, logged=True)
            response.headers.setdefault("Content-Security-Policy", DEFAULT_CSP)
        return response

    def process_exception(self, request, exception):
        from django.core import signals
        from django.core.exceptions import PermissionDenied, SuspiciousOperation
        from django.http import Http404

        if isinstance(exception, Http404 | PermissionDenied | SuspiciousOperation):
            return None  # not a server error: Django's own 404/403/400 handling
        if settings.DEBUG and _is_superuser(request):
            return None  # Django's technical page, for a superuser in development only
        signals.got_request_exception.send(sender=self.__class__, request=request)
        from studio.views import server_error_response

        return server_error_response(request, exception)


def _is_superuser(request) -> bool:
    user = getattr(request, "user", None)
    try:
        return bool(user is not None and user.is_superuser)
    except Exception:  # the user could not even be loaded (the error may be that)
        return False


TIME_ZONE_COOKIE = "tz"
# An IANA zone name as browsers report it ("Europe/Paris", "America/Argentina/Buenos_Aires").
_ZONE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+){0,2}$")


@functools.lru_cache(maxsize=256)
def _zone(name: str):
    if not _ZONE_NAME.match(name):
        return None
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return None


class TimeZoneMiddleware:
    """Pages show moments in the person's own time zone: ``static/js/time-zone.js`` stores the
    browser's zone in the ``tz`` cookie, and every request activates it (a missing or unknown
    zone leaves ``TIME_ZONE``). Only display changes: stored times are UTC."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        zone = _zone(unquote(request.COOKIES.get(TIME_ZONE_COOKIE, ""))[:64])
        if zone is None:
            timezone.deactivate()
            return self.get_response(request)
        with timezone.override(zone):
            return self.get_response(request)

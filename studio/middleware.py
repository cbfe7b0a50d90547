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
    is what production shows. Server errors keep the technical page (the traceback)."""

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

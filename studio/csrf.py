"""The API's session authentication (DEFAULT_AUTHENTICATION_CLASSES). Its own module: DRF
imports it while ``rest_framework.views`` is still loading."""

from __future__ import annotations

from django.http import QueryDict
from django.utils.datastructures import MultiValueDict
from rest_framework.authentication import CSRFCheck, SessionAuthentication
from rest_framework.exceptions import PermissionDenied


class SessionCsrfAuthentication(SessionAuthentication):
    """Session authentication whose CSRF check runs on the plain Django request and takes the
    token from the ``X-CSRFToken`` header only, so it never depends on the body or its type."""

    def enforce_csrf(self, request):
        django_request = getattr(request, "_request", request)
        if not hasattr(django_request, "_post"):
            # The API reads JSON bodies only (DEFAULT_PARSER_CLASSES). Django's check would
            # otherwise parse a form body looking for a token field, and a malformed or oversized
            # multipart body would raise there instead of answering 403.
            django_request._post, django_request._files = QueryDict(), MultiValueDict()
        check = CSRFCheck(lambda _request: None)
        check.process_request(django_request)
        reason = check.process_view(django_request, None, (), {})
        if reason:
            raise PermissionDenied(f"CSRF Failed: {reason}")

"""The base of every API view of the project: the session check (and its CSRF rule,
``studio.csrf``) before anything reads the request's body or its Accept header.

DRF's own order is content negotiation (406), then authentication, whose CSRF check read
``request.POST`` through DRF's parsers, so an unsafe request with no token but an unsupported
body type got 415 and one asking for another type 406. A missing token is the first thing wrong
with such a request, whatever it carries, so it is the first answer: 403.
"""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

API_PREFIX = "/api/"
# The one shape of every error the API answers (documented as the schema's ApiError).
ERROR_DETAILS = {
    400: "Bad request.",
    403: "You do not have permission to perform this action.",
    404: "Not found.",
    405: "Method not allowed.",
    500: "Server error; it was logged for the admins.",
}


class ApiError(serializers.Serializer):
    """The one error shape, for views that document an error answer of their own (the schema
    component ``ApiError``; studio/schema.py documents the answers every operation can give)."""

    detail = serializers.CharField()
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()), required=False
    )


def is_api_request(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def api_error(status: int, detail: str = "") -> JsonResponse:
    """An error of an API path that never reached a view (no URL, a server error): JSON, in the
    shape every view answers with, not an HTML page."""
    return JsonResponse({"detail": detail or ERROR_DETAILS[status]}, status=status)


def _flatten(errors, prefix: str = "") -> dict[str, list[str]]:
    flat: dict[str, list[str]] = {}
    if isinstance(errors, dict):
        for key, value in errors.items():
            flat.update(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(errors, list) and any(isinstance(e, dict | list) for e in errors):
        for index, value in enumerate(errors):
            flat.update(_flatten(value, f"{prefix}.{index}" if prefix else str(index)))
    else:
        items = errors if isinstance(errors, list) else [errors]
        flat[prefix or "non_field_errors"] = [str(e) for e in items]
    return flat


def exception_handler(exc, context):
    """DRF's handler, with every answer in one shape: ``{"detail": text}``, plus ``errors``
    (field name → messages) when input was invalid."""
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    data = response.data
    if isinstance(data, dict) and isinstance(data.get("detail"), str):
        return response  # already {detail[, errors|stored]}
    if isinstance(exc, ValidationError) or isinstance(data, dict | list):
        errors = _flatten(data)
        first = next(iter(errors.values()), ["Invalid request."])
        response.data = {"detail": str(first[0]), "errors": errors}
    return response


class StudioApiView(APIView):
    """The base of every API view: authenticates (and so checks CSRF) before negotiating the
    response's content type. A refusal is rendered as JSON whatever the Accept header asked:
    DRF renders exceptions with its first renderer when negotiation has not happened."""

    def initial(self, request, *args, **kwargs):
        self.perform_authentication(request)
        super().initial(request, *args, **kwargs)

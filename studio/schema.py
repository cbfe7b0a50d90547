"""OpenAPI schema of the project (drf-spectacular): what it documents beyond the views' own
declarations, so that every answer the server gives is in the schema.

- ``StudioAutoSchema``: a PATCH body that its view validates whole keeps its required fields.
- ``document_error_answers`` (a postprocessing hook): the answers every API operation can give
  before or around its own logic, in the one error shape (``ApiError``, studio/api.py): 403
  (no session, a missing CSRF token, a role without access), 404 for a path with ids (not yours,
  no such object, an id that is not a number), and for a JSON body 400 (malformed JSON or
  invalid fields) and 415 (another body type).
"""

from __future__ import annotations

from drf_spectacular.authentication import SessionScheme
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import force_instance


class SessionCsrfScheme(SessionScheme):
    """Our session authentication is documented as the session cookie it is."""

    target_class = "studio.csrf.SessionCsrfAuthentication"
    priority = 0


class StudioAutoSchema(AutoSchema):
    def _get_request_for_media_type(self, serializer, direction="request"):
        # drf-spectacular documents every PATCH body as partial (all fields optional); a
        # serializer marked ``whole_on_patch`` is validated whole, so its required fields stay.
        if self.method == "PATCH" and getattr(force_instance(serializer), "whole_on_patch", False):
            self.method = "POST"
            try:
                return super()._get_request_for_media_type(serializer, direction)
            finally:
                self.method = "PATCH"
        return super()._get_request_for_media_type(serializer, direction)


API_ERROR = {
    "type": "object",
    "description": "Every error of the API: a sentence, and per field its messages when input "
    "was invalid.",
    "properties": {
        "detail": {"type": "string"},
        "errors": {
            "type": "object",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        },
    },
    "required": ["detail"],
}
GENERIC = {
    "400": "Malformed JSON or invalid fields; nothing was written.",
    "403": "Not logged in, no CSRF token, or your role may not do this.",
    "404": "Not yours to read, or no such object.",
    "415": "The body is not JSON; nothing was written.",
}


def document_error_answers(result, generator, request, public):
    result.setdefault("components", {}).setdefault("schemas", {})["ApiError"] = API_ERROR
    ref = {"$ref": "#/components/schemas/ApiError"}
    for path, operations in result.get("paths", {}).items():
        if not path.startswith("/api/") or path.startswith("/api/schema"):
            continue
        for method, operation in operations.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            codes = ["403"]
            if "{" in path:
                codes.append("404")
            if "requestBody" in operation:
                codes += ["400", "415"]
            responses = operation.setdefault("responses", {})
            for code in codes:
                responses.setdefault(
                    code,
                    {
                        "description": GENERIC[code],
                        "content": {"application/json": {"schema": ref}},
                    },
                )
    return result

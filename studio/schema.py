"""OpenAPI schema extensions of the project (drf-spectacular); imported by StudioConfig.ready()."""

from __future__ import annotations

from drf_spectacular.authentication import SessionScheme


class SessionCsrfScheme(SessionScheme):
    """Our session authentication is documented as the session cookie it is."""

    target_class = "studio.csrf.SessionCsrfAuthentication"
    priority = 0

"""The base of every API view of the project: the session check (and its CSRF rule,
``studio.csrf``) before anything reads the request's body or its Accept header.

DRF's own order is content negotiation (406), then authentication, whose CSRF check read
``request.POST`` through DRF's parsers, so an unsafe request with no token but an unsupported
body type got 415 and one asking for another type 406. A missing token is the first thing wrong
with such a request, whatever it carries, so it is the first answer: 403.
"""

from __future__ import annotations

from rest_framework.views import APIView


class StudioApiView(APIView):
    """The base of every API view: authenticates (and so checks CSRF) before negotiating the
    response's content type. A refusal is rendered as JSON whatever the Accept header asked:
    DRF renders exceptions with its first renderer when negotiation has not happened."""

    def initial(self, request, *args, **kwargs):
        self.perform_authentication(request)
        super().initial(request, *args, **kwargs)

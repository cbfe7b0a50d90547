"""Login throttling hooks for django-axes (settings: AXES_*, from LOGIN_* variables).

The counting, the lockout and the admin's list of access attempts are axes's; what is ours is
which failures a success clears, which address a request comes from and what a refused person
reads (docs/security.md, "Login lockout").
"""

from __future__ import annotations

import ipaddress
import math

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


class LoginFailureHandler(AxesDatabaseHandler):
    """axes's database handler, with one change: a successful login clears only the failures of
    the user name that logged in, from the address it logged in from.

    axes clears every failure its lockout parameters match: with ``["username", "ip_address"]``
    a success would also clear the failures recorded against *other* names from that address, so
    one's own account could reset a guessing run against someone else's, again and again. A
    failure still counts against the name and against the address; only the clearing is narrower.
    """

    def reset_user_attempts(self, request: HttpRequest, credentials: dict | None = None) -> int:
        username = get_client_username(request, credentials)
        if not username:
            return 0
        count, _ = AccessAttempt.objects.filter(
            username=username, ip_address=request.axes_ip_address
        ).delete()
        return count


def client_address(request: HttpRequest) -> str:
    """REMOTE_ADDR, or the header named by LOGIN_CLIENT_IP_HEADER when a proxy in front sets it
    (and overwrites what the client sent). A missing or malformed header counts as REMOTE_ADDR,
    so it cannot be used to spread failures over made-up addresses."""
    remote = request.META.get("REMOTE_ADDR", "")
    header = settings.LOGIN_CLIENT_IP_HEADER
    if header:
        value = request.headers.get(header, "").strip()
        try:
            return str(ipaddress.ip_address(value))
        except ValueError:
            return remote
    return remote


def locked_out(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """The page a refused login gets (429), saying why, for how long and who can lift it."""
    minutes = math.ceil(settings.AXES_COOLOFF_TIME.total_seconds() / 60)
    context = {
        "status": 429,
        "limit": settings.AXES_FAILURE_LIMIT,
        "minutes": minutes,
    }
    return render(request, "registration/locked_out.html", context, status=429)

"""Login throttling hooks for django-axes (settings: AXES_*, from LOGIN_* variables).

The counting, the lockout and the admin's list of access attempts are axes's; what is ours is
which address a request comes from and what a refused person reads.
"""

from __future__ import annotations

import ipaddress
import math

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


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

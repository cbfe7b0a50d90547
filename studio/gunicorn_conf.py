"""gunicorn's settings that follow ours (``gunicorn -c python:studio.gunicorn_conf``; make run,
the Dockerfile and docker-compose.yml all start it so).

gunicorn believes ``X-Forwarded-Proto: https`` from 127.0.0.1 unless told otherwise and marks
such a request secure before Django sees it, so a request claiming https skipped the HTTPS
redirect even with TRUST_X_FORWARDED_PROTO=false. Here gunicorn trusts the header exactly when
Django does (studio/settings.py): with TRUST_X_FORWARDED_PROTO=true, from the addresses in
FORWARDED_ALLOW_IPS (gunicorn's own variable; 127.0.0.1 and ::1 when unset), and only that one
header; otherwise from no address at all.
"""

from __future__ import annotations

import os

from studio.env import env_bool


def _trusted_proxies() -> str:
    if not env_bool("TRUST_X_FORWARDED_PROTO", False):
        return ""
    return os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")


forwarded_allow_ips = _trusted_proxies()
# Django reads X-Forwarded-Proto only (SECURE_PROXY_SSL_HEADER); gunicorn would also believe
# X-Forwarded-Protocol and X-Forwarded-Ssl from a trusted address.
secure_scheme_headers = {"X-FORWARDED-PROTO": "https"}

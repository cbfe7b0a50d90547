"""Checks the web server makes before it serves anything (studio/wsgi.py, studio/asgi.py)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.staticfiles.storage import ManifestFilesMixin
from django.core.exceptions import ImproperlyConfigured
from django.core.files.storage import storages


def refuse_uncollected_static() -> None:
    """In production the static storage names files by their hash, looked up in a manifest
    that ``collectstatic`` writes; without it every page that links a script or a style sheet
    answers 500. Better not to start at all, saying what to run."""
    storage = storages["staticfiles"]
    if not isinstance(storage, ManifestFilesMixin):
        return
    if storage.read_manifest() is None:
        raise ImproperlyConfigured(
            f"The static files are not collected: {settings.STATIC_ROOT}/{storage.manifest_name} "
            "is missing. Run `python manage.py collectstatic --noinput` (with the same settings) "
            "before starting the web server; `make run` does it when STUDIO_MODE=production."
        )

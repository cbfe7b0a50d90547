"""Names to rows for the run commands, with messages instead of tracebacks."""

from __future__ import annotations

from django.core.management.base import CommandError

from annotation.models import Release
from review.models import Manifest
from scoring.models import Endpoint, Run
from scoring.packages import PackageError, package_resolve


def endpoint(name: str) -> Endpoint:
    found = Endpoint.objects.filter(name=name).first()
    if found is None:
        raise CommandError(f"no endpoint {name!r} (manage.py endpoint_add, or the admin)")
    return found


def package(ref: str):
    try:
        return package_resolve(ref)
    except PackageError as exc:
        raise CommandError(str(exc)) from None


def run(name: str) -> Run:
    found = Run.objects.filter(name=name).first()
    if found is None:
        raise CommandError(f"no run {name!r}")
    return found


def steps(*, manifest: str | None, release: str | None) -> tuple[Release | None, Manifest | None]:
    if bool(manifest) == bool(release):
        raise CommandError("give --manifest NAME or --release NAME (the whole release)")
    if manifest:
        found = Manifest.objects.filter(name=manifest, frozen_at__isnull=False).first()
        if found is None:
            raise CommandError(f"no frozen manifest {manifest!r}")
        return found.release, found
    found = Release.objects.filter(name=release, frozen_at__isnull=False).first()
    if found is None:
        raise CommandError(f"no frozen release {release!r}")
    return found, None

"""Reads scoped to a user: the one access path to releases, designs and manifests.

Only admins see them: a manifest's sample list and records name steps and videos, which blinded
roles (raters, auditors) must never reach. Anything outside a user's scope is missing (404)."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from annotation.models import Release
from review.manifests.models import Manifest, SampleDesign
from studio.roles import is_admin


def releases_for(user) -> QuerySet[Release]:
    releases = Release.objects.filter(frozen_at__isnull=False).select_related("parent", "frozen_by")
    return releases if is_admin(user) else releases.none()


def designs_for(user) -> QuerySet[SampleDesign]:
    designs = SampleDesign.objects.select_related("release", "created_by")
    return designs if is_admin(user) else designs.none()


def manifests_for(user) -> QuerySet[Manifest]:
    manifests = Manifest.objects.filter(frozen_at__isnull=False).select_related(
        "release", "frozen_by"
    )
    return manifests if is_admin(user) else manifests.none()


def _get_or_404(queryset: QuerySet, pk, what: str):
    try:
        return queryset.get(pk=pk)
    except (queryset.model.DoesNotExist, ValueError, TypeError):
        raise Http404(f"No such {what}.") from None


def release_for_or_404(user, pk) -> Release:
    return _get_or_404(releases_for(user), pk, "release")


def design_for_or_404(user, pk) -> SampleDesign:
    return _get_or_404(designs_for(user), pk, "design")


def manifest_for_or_404(user, pk) -> Manifest:
    return _get_or_404(manifests_for(user), pk, "manifest")

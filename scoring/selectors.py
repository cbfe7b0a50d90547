"""Reads scoped to a user: runs, their items and judgements are for admins only (a prediction
names steps and models; blinded roles must never reach one). Anything else is a 404."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from scoring.models import Run, RunItem
from studio.roles import is_admin


def runs_for(user) -> QuerySet[Run]:
    runs = Run.objects.select_related("endpoint", "package", "release", "manifest")
    return runs if is_admin(user) else runs.none()


def run_for_or_404(user, pk) -> Run:
    try:
        return runs_for(user).get(pk=pk)
    except (Run.DoesNotExist, ValueError, TypeError):
        raise Http404("No such run.") from None


def item_for_or_404(user, run: Run, pk) -> RunItem:
    try:
        return RunItem.objects.select_related("media", "cached_from").get(run=run, pk=pk)
    except (RunItem.DoesNotExist, ValueError, TypeError):
        raise Http404("No such item.") from None

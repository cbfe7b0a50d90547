"""How the run pages (admins only) name an item: the step it is about, as the workspace names
it, with its stretch of the video as frozen in the run's release: ``Step 6 of kitchen-tea.mp4
(0:12.000 - 0:13.400)`` (an en dash between the times). A judge's item also names what it
judged (the prediction run, or the campaign and rater of a human answer); a QA judge's item
names its QA group (``Edge question on garden-watering.mp4 (0:12.000 - 0:15.000)``), a QA run's
item its group and turn (``... · turn 2``). An item
about nothing known keeps its key."""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from django.contrib.auth import get_user_model

from annotation.models import ReleaseStep
from media.models import SourceVideo
from scoring.models import Run, RunItem
from studio.display import span
from studio.vocabulary import label


def _releases(run: Run) -> list[int]:
    """The releases whose frozen times name the run's steps, most specific first."""
    ids = [run.release_id] if run.release_id else []
    for source in run.sources.all():
        if source.release_id and source.release_id not in ids:
            ids.append(source.release_id)
    return ids


def _step_names(run: Run, samples: set) -> dict:
    """``{sample_id: name}`` from the frozen steps, the run's own release first."""
    preferred = _releases(run)
    steps: dict = {}
    rows = ReleaseStep.objects.filter(sample_id__in=samples).order_by("-release_id")
    rows = rows.only("sample_id", "release_id", "video_sha256", "position", "start_us", "end_us")
    for row in rows:
        known = steps.get(row.sample_id)
        rank = preferred.index(row.release_id) if row.release_id in preferred else len(preferred)
        if known is None or rank < known[0]:
            steps[row.sample_id] = (rank, row)
    titles = _titles({row.video_sha256 for _, row in steps.values()})
    return {
        sample: f"Step {row.position + 1} of {titles.get(row.video_sha256, 'an unknown video')} "
        f"({span(row.start_us, row.end_us)})"
        for sample, (_, row) in steps.items()
    }


def _titles(sha256s) -> dict[str, str]:
    return dict(SourceVideo.objects.filter(sha256__in=sha256s).values_list("sha256", "title"))


def _group_names(uids: set) -> dict:
    """``{uid: name}`` of QA groups (the newest version of each)."""
    from review.qa.models import QaGroup

    names = {}
    for group in QaGroup.objects.filter(uid__in=uids).select_related("video").order_by("pk"):
        kind = label("qa_structure", group.structure)
        names[group.uid] = (
            f"{kind} question on {group.video.title} "
            f"({span(group.span_start_us, group.span_end_us)})"
        )
    return names


def _judged(keys: list[str]) -> dict[str, str]:
    """What a judge item's key says it judged: ``run`` or ``campaign:person`` -> words."""
    people = {int(k.split(":")[1]) for k in keys if k.count(":") == 2 and k.split(":")[1].isdigit()}
    names = dict(get_user_model().objects.filter(pk__in=people).values_list("pk", "username"))
    judged = {}
    for key in keys:
        parts = key.split(":")
        if len(parts) == 3 and parts[1].isdigit():
            judged[key] = f"{parts[0]}, answer of {names.get(int(parts[1]), 'a former rater')}"
        elif len(parts) == 2:
            judged[key] = parts[0]
    return judged


def _uid(text: str):
    try:
        return uuid.UUID(text)
    except ValueError:
        return None


def item_names(run: Run, items: Iterable[RunItem]) -> dict[int, str]:
    """``{item.pk: name}`` for ``items`` of ``run``, in a fixed number of queries."""
    items = list(items)
    steps = _step_names(run, {i.sample_id for i in items if i.sample_id})
    # QA groups: a QA judge's item by its key, a QA run's turns (and their judgements) by the
    # group's uid in sample_id.
    groups = _group_names({u for i in items if (u := i.sample_id or _uid(i.key))} - set(steps))
    judged = _judged([i.key for i in items]) if run.is_judge else {}
    names = {}
    for item in items:
        ident = item.sample_id or _uid(item.key)
        name = steps.get(ident) or groups.get(ident)
        if name is None:
            names[item.pk] = item.key
            continue
        if ident in groups and item.sample_id and item.key.rsplit(":", 1)[-1].isdigit():
            name += f" · turn {item.key.rsplit(':', 1)[-1]}"
        if item.key in judged:
            name += f" · {judged[item.key]}"
        names[item.pk] = name
    return names

"""The judge-validation pool from prediction runs, handed to review as plain data.

A valid triplet pairing is a step of the release with an ``ok`` prediction from a closed-model
run and one from an open-model run (closed or open: the run's endpoint's ``open_weights``). The
pool and the prediction texts go to ``review.judgeval.services`` (preview, freeze), which never
reads runs itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.core.exceptions import ValidationError

from annotation.models import Release, ReleaseStep
from review.judgeval.selection import PoolTriplet
from review.judgeval.services import judgeval_freeze, judgeval_preview, selection_params
from scoring.models import Outcome, Run, RunKind

# The prediction's fields (scoring.runs) and the short names the triplets keep.
PREDICTION_KEYS = (
    ("local", "local_intent"),
    ("procedural", "procedural_intent"),
    ("next", "next_step"),
)


def split_runs(runs: Sequence[Run]) -> tuple[list[Run], list[Run]]:
    """(closed runs, open runs) by their endpoints' open_weights flag."""
    closed = [r for r in runs if not r.endpoint.open_weights]
    opened = [r for r in runs if r.endpoint.open_weights]
    return closed, opened


def _check_runs(release: Release, closed: Sequence[Run], opened: Sequence[Run]) -> None:
    if not closed or not opened:
        raise ValidationError({"runs": "Name at least one closed-model and one open-model run."})
    for run in (*closed, *opened):
        if run.kind != RunKind.PREDICTION:
            raise ValidationError({"runs": f"Run {run.name} is a {run.kind} run, not predictions."})
        run_release = run.manifest.release_id if run.manifest_id else run.release_id
        if run_release != release.pk:
            raise ValidationError({"runs": f"Run {run.name} is not over release {release.name}."})
    names = [r.name for r in (*closed, *opened)]
    if len(set(names)) != len(names):
        raise ValidationError({"runs": "A run is named twice."})


def triplet_pool(
    *, release: Release, closed: Sequence[Run], opened: Sequence[Run], duration: str = "step"
) -> tuple[list[PoolTriplet], dict[tuple[str, str], dict]]:
    """Every valid (step, closed run, open run) pairing, and the prediction texts by
    ``(sample_id, run name)``."""
    _check_runs(release, closed, opened)
    steps = {
        str(sid): (scene, video, (cutoff if duration == "observation" else end) - start)
        for sid, scene, video, start, cutoff, end in ReleaseStep.objects.filter(
            release=release
        ).values_list("sample_id", "scene_slug", "video_sha256", "start_us", "cutoff_us", "end_us")
    }
    texts: dict[tuple[str, str], dict] = {}
    ok: dict[str, set[str]] = {}
    for run in (*closed, *opened):
        rows = run.items.filter(
            outcome=Outcome.OK, prediction__isnull=False, sample_id__isnull=False
        ).values_list("sample_id", "prediction")
        for sample_id, prediction in rows.iterator(chunk_size=2000):
            sid = str(sample_id)
            if sid not in steps or not isinstance(prediction, Mapping):
                continue
            texts[(sid, run.name)] = {
                short: str(prediction.get(field) or "") for short, field in PREDICTION_KEYS
            }
            ok.setdefault(sid, set()).add(run.name)
    pool = []
    for sid, runs in sorted(ok.items()):
        scene, video, length = steps[sid]
        for c in closed:
            if c.name not in runs:
                continue
            for o in opened:
                if o.name in runs:
                    pool.append(PoolTriplet(sid, scene, video, length, c.name, o.name))
    return pool, texts


def judgeval_pool_preview(*, release, closed, opened, seed: int, params: Mapping | None) -> dict:
    parsed = selection_params(params)
    pool, _ = triplet_pool(release=release, closed=closed, opened=opened, duration=parsed.duration)
    return {"pool_triplets": len(pool), **judgeval_preview(pool=pool, params=params, seed=seed)}


def judgeval_pool_freeze(
    *, name: str, release, closed, opened, seed: int, params: Mapping | None, author=None
):
    parsed = selection_params(params)
    pool, texts = triplet_pool(
        release=release, closed=closed, opened=opened, duration=parsed.duration
    )
    return judgeval_freeze(
        name=name,
        release=release,
        pool=pool,
        predictions=texts,
        seed=seed,
        params=params,
        author=author,
    )

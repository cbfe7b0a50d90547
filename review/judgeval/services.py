"""Judge-validation writes: preview and freeze the balanced design as a manifest.

The pool comes as plain data from the scoring side (``scoring.judgeval``), which reads the runs;
review never imports scoring. The manifest (kind ``judge_validation``, method ``milp``) records
the complete constraint values, the pool's SHA-256 and every chosen pairing, so the same pool,
parameters and seed give the same manifest bytes; the prediction texts are stored beside it as
``JudgeTriplet`` rows and their SHA-256 is in the manifest too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pydantic
from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.models import Release
from review.judgeval.kind import KIND
from review.judgeval.models import JudgeTriplet
from review.judgeval.selection import Design, PoolTriplet, SelectionParams, select_triplets
from review.manifests.models import Manifest, ManifestSample, Method
from review.manifests.sampling import Infeasible, bin_of
from review.manifests.services import check_seed, manifest_freeze_selection, pydantic_message
from studio.canonical import canonical_bytes, sha256_hex

PREDICTION_FIELDS = ("local", "procedural", "next")


def selection_params(params: Mapping | None) -> SelectionParams:
    if params is not None and not isinstance(params, Mapping):
        raise ValidationError({"params": "Must be an object."})
    try:
        return SelectionParams.model_validate(dict(params or {}))
    except pydantic.ValidationError as exc:
        raise ValidationError(pydantic_message(exc)) from None


def _design(pool: Iterable[PoolTriplet], params: Mapping | None, seed: int) -> Design:
    check_seed(seed)
    parsed = selection_params(params)
    try:
        return select_triplets(pool, parsed, seed=seed)
    except Infeasible as exc:
        raise ValidationError(str(exc)) from None


def judgeval_preview(*, pool: Iterable[PoolTriplet], params: Mapping | None, seed: int) -> dict:
    """What freezing would give (the counts per constraint family); nothing is written."""
    return _design(pool, params, seed).counts


def pool_sha256(pool: Iterable[PoolTriplet]) -> str:
    rows = sorted({(t.sample_id, t.closed, t.open, t.scene, t.video, t.duration_us) for t in pool})
    return sha256_hex(canonical_bytes([list(r) for r in rows]))


@transaction.atomic
def judgeval_freeze(
    *,
    name: str,
    release: Release,
    pool: list[PoolTriplet],
    predictions: Mapping[tuple[str, str], Mapping],
    seed: int,
    params: Mapping | None = None,
    author=None,
) -> Manifest:
    """Solve the design and freeze it with its triplets. ``predictions[(sample_id, run)]`` holds
    the prediction texts (``local``, ``procedural``, ``next``) of every pooled pairing's runs.
    Bad input or an infeasible design raises ValidationError (the constraint named); nothing is
    written then."""
    if Manifest.objects.filter(name=name).exists():
        raise ValidationError({"name": f"A manifest named {name} already exists."})
    Manifest(name=name).clean_fields(
        exclude=[f.name for f in Manifest._meta.fields if f.name != "name"]
    )
    if not release.is_frozen:
        raise ValidationError({"release": "Designs draw from frozen releases only."})
    design = _design(pool, params, seed)
    missing = [
        f"{t.sample_id} / {run}"
        for t in design.chosen
        for run in (t.closed, t.open)
        if (t.sample_id, run) not in predictions
    ]
    if missing:
        raise ValidationError({"predictions": f"No prediction for {', '.join(missing[:5])}."})
    recorded = design.params.model_dump(mode="json", exclude={"time_limit_s"})
    texts = []
    for t in design.chosen:
        for run in (t.closed, t.open):
            text = predictions[(t.sample_id, run)]
            texts.append([t.sample_id, run, *(str(text.get(f) or "") for f in PREDICTION_FIELDS)])
    recorded |= {
        "pool": {
            "triplets": len(pool),
            "steps": len({t.sample_id for t in pool}),
            "sha256": pool_sha256(pool),
            "closed_runs": sorted({t.closed for t in pool}),
            "open_runs": sorted({t.open for t in pool}),
        },
        "pairs": design.pairs(),
        "predictions_sha256": sha256_hex(canonical_bytes(texts)),
    }
    bins = {t.sample_id: bin_of(t.duration_us, design.params.bin_edges_us) for t in design.chosen}
    manifest = manifest_freeze_selection(
        name=name,
        kind=KIND,
        method=Method.MILP,
        seed=seed,
        release=release,
        params=recorded,
        sample_ids=design.sample_ids,
        bins=bins,
        author=author,
    )
    samples = {str(s.sample_id): s for s in ManifestSample.objects.filter(manifest=manifest)}
    rows = []
    for t in design.chosen:
        for slot, run in (("closed", t.closed), ("open", t.open)):
            text = predictions[(t.sample_id, run)]
            rows.append(
                JudgeTriplet(
                    manifest=manifest,
                    sample=samples[t.sample_id],
                    slot=slot,
                    run_name=run,
                    **{f: str(text.get(f) or "") for f in PREDICTION_FIELDS},
                )
            )
    JudgeTriplet.objects.bulk_create(rows)
    return manifest

"""Sample designs and frozen manifests: create, preview, freeze, export."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.models import Release, ReleaseStep
from annotation.releases import (
    RECORD_ROW_FIELDS,
    RELEASE_V1,
    RELEASE_V2,
    BundleError,
    RecordShape,
    bundle_export,
    bundle_zip_tempfile,
    record_format_register,
    release_record,
    release_records,
    sealed_record_format,
)
from review.manifests.models import Manifest, ManifestSample, SampleDesign
from studio.canonical import MAX_SAFE_INTEGER, RecordStream, build_manifest, canonical_bytes
from studio.canonical import sha256_hex as _sha256_hex
from studio.services import now

if TYPE_CHECKING:
    import pydantic

    from review.manifests.sampling import Candidate

# The samplers (review/manifests/sampling.py, pydantic models) are imported by the functions that
# draw: the admin and the demo seeders import this module in every process.

# A sampled step's record: the release record of the same version plus its duration bin and
# group. Manifests frozen with the first version keep it (annotation/releases/formats.py).
SUBSET_V1, SUBSET_V2 = (
    record_format_register(
        RecordShape(name, (*base.fields, "duration_bin", "group"), optional=base.optional)
    )
    for name, base in (("subset-step/1", RELEASE_V1), ("subset-step/2", RELEASE_V2))
)
_RELEASE_SHAPE = {SUBSET_V1.name: RELEASE_V1, SUBSET_V2.name: RELEASE_V2}
RECORD_FORMAT = SUBSET_V2.name
_ROW_FIELDS = RECORD_ROW_FIELDS
BATCH = 2000
# The .zip bundle of a manifest that is not drawn from a release, by manifest kind: the package
# that draws such manifests registers its writer (review/qa: QA-review manifests of groups).
_BUNDLE_ZIPS: dict[str, Callable] = {}


def bundle_zip_register(kind: str, write: Callable) -> None:
    """Register ``write(manifest=...)`` as the bundle of kind ``kind``'s manifests without a
    release; registering it again replaces it."""
    _BUNDLE_ZIPS[kind] = write


def pydantic_message(exc: pydantic.ValidationError) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"]) or "params"
        errors.setdefault(where, []).append(error["msg"])
    return errors


def design_params(*, method: str, params: Mapping) -> dict:
    """Validate a design's parameters; returns them complete (defaults filled in), as frozen."""
    if not isinstance(params, Mapping):
        raise ValidationError({"params": "Must be an object."})
    import pydantic

    from review.manifests.sampling import Infeasible, parse_design

    try:
        design = parse_design(method, params)
    except Infeasible as exc:
        raise ValidationError({"method": str(exc)}) from None
    except pydantic.ValidationError as exc:
        raise ValidationError(pydantic_message(exc)) from None
    dumped = design.model_dump(mode="json")
    dumped.pop("method")
    return dumped


def check_seed(seed) -> None:
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SAFE_INTEGER:
        raise ValidationError({"seed": "Use an integer from 0 to 2**53 - 1."})


@transaction.atomic
def design_create(
    *,
    author,
    name: str,
    method: str,
    release: Release,
    seed: int,
    params: Mapping,
    kind: str = "audit",
) -> SampleDesign:
    check_seed(seed)
    if not release.is_frozen:
        raise ValidationError({"release": "Designs draw from frozen releases only."})
    design = SampleDesign(
        name=name,
        kind=kind,
        method=method,
        release=release,
        seed=seed,
        params=design_params(method=method, params=params),
        created_by=author,
    )
    design.full_clean(exclude=["created_by"])
    design.save()
    return design


@transaction.atomic
def design_update(*, design: SampleDesign, values: Mapping) -> SampleDesign:
    allowed = {"name", "kind", "method", "release", "seed", "params"}
    unknown = set(values) - allowed
    if unknown:
        raise ValidationError(dict.fromkeys(sorted(unknown), "Not an editable field."))
    for key, value in values.items():
        setattr(design, key, value)
    check_seed(design.seed)
    if not design.release.is_frozen:
        raise ValidationError({"release": "Designs draw from frozen releases only."})
    design.params = design_params(method=design.method, params=design.params)
    design.full_clean(exclude=["created_by"])
    design.save()
    return design


def release_candidates(*, release: Release) -> list[Candidate]:
    from review.manifests.sampling import Candidate

    rows = ReleaseStep.objects.filter(release=release).values_list(
        "sample_id", "scene_slug", "video_sha256", "start_us", "cutoff_us", "end_us"
    )
    return [
        Candidate(str(sid), scene, video, start, cutoff, end)
        for sid, scene, video, start, cutoff, end in rows.iterator(chunk_size=BATCH)
    ]


def _draw(design: SampleDesign):
    from review.manifests.sampling import Infeasible, parse_design, select

    parsed = parse_design(design.method, design.params)
    candidates = release_candidates(release=design.release)
    try:
        selection = select(parsed, candidates, seed=design.seed)
    except Infeasible as exc:
        raise ValidationError(str(exc)) from None
    return parsed, candidates, selection


def design_preview(*, design: SampleDesign) -> dict:
    """What freezing would give: achieved counts next to the targets (ValidationError if the
    design cannot be met, with the constraint named)."""
    from review.manifests.sampling import preview

    parsed, candidates, selection = _draw(design)
    return preview(parsed, candidates, selection)


def manifest_records(*, manifest: Manifest, record_format: str | None = None) -> Iterator[dict]:
    """Records of a manifest in the format it was frozen with (``subset-step/2`` now, or
    ``record_format``): the release record plus its duration bin and group, in canonical
    order."""
    record_format = record_format or sealed_record_format(manifest, RECORD_FORMAT)
    release_shape = _RELEASE_SHAPE[record_format]
    rows = (
        ManifestSample.objects.filter(manifest=manifest)
        .order_by("sample_id")
        .values_list(*(f"release_step__{f}" for f in _ROW_FIELDS), "duration_bin", "group")
    )
    for *values, duration_bin, group in rows.iterator(chunk_size=BATCH):
        record = release_record(tuple(values), shape=release_shape)
        record["duration_bin"] = duration_bin
        record["group"] = group or None
        yield record


@transaction.atomic
def manifest_freeze(*, design: SampleDesign, author, name: str | None = None) -> Manifest:
    """Draw the design's sample and freeze it as a manifest with both SHA-256 values.

    Deterministic: the same release, design and seed give the same manifest bytes on any database
    or machine. Refuses (nothing written) a taken name or a design that cannot be met.
    """
    name = name or design.name
    if Manifest.objects.filter(name=name).exists():
        raise ValidationError({"name": f"A manifest named {name} already exists."})
    Manifest(name=name).clean_fields(
        exclude=[f.name for f in Manifest._meta.fields if f.name != "name"]
    )
    params = design_params(method=design.method, params=design.params)
    check_seed(design.seed)
    release = design.release
    _, _, selection = _draw(design)
    return manifest_freeze_selection(
        name=name,
        kind=design.kind,
        method=design.method,
        seed=design.seed,
        release=release,
        params=params,
        sample_ids=selection.sample_ids,
        bins=selection.bins,
        groups=selection.groups,
        author=author,
        design=design,
    )


def manifest_freeze_selection(
    *,
    name: str,
    kind: str,
    method: str,
    seed: int,
    release: Release,
    params: Mapping,
    sample_ids,
    bins: Mapping[str, int],
    groups: Mapping[str, str] | None = None,
    author,
    design: SampleDesign | None = None,
    record_format: str = RECORD_FORMAT,
) -> Manifest:
    """Write and seal a manifest of chosen samples (the common end of every design's freeze;
    call it inside a transaction after checking the name). ``params`` is the complete design
    as the manifest records it (integers, text, lists, objects; never floats).
    ``record_format`` is for a manifest made again from a copy frozen elsewhere with a first
    version (an import); every freeze here takes the current one."""
    if record_format not in _RELEASE_SHAPE:
        raise ValidationError(
            f"Records of {record_format!r} are not a manifest's; this version reads "
            f"{' and '.join(_RELEASE_SHAPE)}."
        )
    groups = groups or {}
    manifest = Manifest.objects.create(
        name=name,
        kind=kind,
        method=method,
        seed=seed,
        release=release,
        design=design,
        frozen_by=author,
    )
    step_ids = dict(
        ReleaseStep.objects.filter(release=release).values_list("sample_id", "id").iterator()
    )
    batch = []
    for sample_id in sample_ids:
        batch.append(
            ManifestSample(
                manifest=manifest,
                release_step_id=step_ids[uuid.UUID(sample_id)],
                sample_id=uuid.UUID(sample_id),
                duration_bin=bins[sample_id],
                group=groups.get(sample_id, ""),
            )
        )
        if len(batch) >= BATCH:
            ManifestSample.objects.bulk_create(batch)
            batch = []
    if batch:
        ManifestSample.objects.bulk_create(batch)

    stream = RecordStream()
    for record in manifest_records(manifest=manifest, record_format=record_format):
        stream.add(record)
    header = build_manifest(
        kind=kind,
        name=name,
        record_format=record_format,
        stream=stream,
        method=method,
        seed=seed,
        design=dict(params),
        release={
            "name": release.name,
            "manifest_sha256": release.manifest_sha256,
            "sample_list_sha256": release.sample_list_sha256,
        },
    )
    text = canonical_bytes(header)
    manifest.sample_count = stream.count
    manifest.sample_list_sha256 = stream.sample_list_sha256
    manifest.records_sha256 = stream.records_sha256
    manifest.manifest_text = text.decode("utf-8")
    manifest.manifest_sha256 = _sha256_hex(text)
    manifest.frozen_at = now()
    manifest.save()
    return manifest


def manifest_export(*, manifest: Manifest, path: Path, as_zip: bool = False) -> Path:
    """Write the manifest's bundle to ``path`` (a new directory, or a .zip with ``as_zip``)."""
    if not manifest.is_frozen:
        raise BundleError(f"Manifest {manifest.name} is not frozen.")
    if manifest.release_id is None:  # a QA-review manifest: its groups are not release steps
        raise BundleError(f"{manifest.name} is a QA-review manifest; use export_qa_manifest.")
    return bundle_export(
        path=path, manifest=manifest.manifest, records=manifest_records(manifest=manifest),
        as_zip=as_zip,
    )  # fmt: skip


def bundle_zip_file(*, release: Release | None = None, manifest: Manifest | None = None):
    """The bundle of a release or manifest as an anonymous temporary .zip file, rewound (a
    FileResponse closes it, and with that deletes it, once it has been sent)."""
    if (release is None) == (manifest is None):
        raise ValueError("give a release or a manifest")
    if release is not None:
        return bundle_zip_tempfile(
            manifest=release.manifest, records=release_records(release=release)
        )
    if manifest.release_id is None:  # a QA-review manifest (review/qa)
        return _BUNDLE_ZIPS[manifest.kind](manifest=manifest)
    return bundle_zip_tempfile(
        manifest=manifest.manifest, records=manifest_records(manifest=manifest)
    )

"""QA-review manifests: the complete-groups design over the groups of a QA group set, frozen
with both SHA-256 values (docs/qa.md, docs/manifests.md).

The draw is ``manifests.sampling.sample_groups`` (whole groups, without replacement, seeded rank);
a group's members are its turns, so a multi-turn dialogue is always sampled whole. With
``by`` set to ``structure``, ``category`` or ``modality`` and ``quotas`` naming how many groups
each value gets, each value's groups are drawn by the same seeded rank.

With ``uids`` the design names its groups instead of drawing them: exactly those groups of the
set (every one must be in it, none twice; ``n_groups`` equals their number), e.g. the groups of
an audit's filter list (``list_sha256`` may record that list's SHA-256). The manifest is frozen
and hashed like any other; its seed orders nothing then but is still recorded.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from pathlib import Path
from typing import Literal

import pydantic
from django.core.exceptions import ValidationError
from django.db import transaction
from pydantic import BaseModel, ConfigDict, Field, model_validator

from review.manifests.models import Kind, Manifest, ManifestSample, Method
from review.manifests.sampling import Infeasible, sample_groups
from review.qa.imports import qa_export_bytes
from review.qa.models import QaGroup, QaGroupSet, QaManifestSource
from review.qa.schema import RECORD_FORMAT
from review.qa.store import LineStream, set_records
from studio.canonical import MAX_SAFE_INTEGER, build_manifest, canonical_bytes, sha256_hex
from studio.services import now


class QaGroupDesign(BaseModel):
    """The parameters a QA-review manifest records as its ``design``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    n_groups: int = Field(gt=0, description="How many complete groups to draw")
    by: Literal["structure", "category", "modality"] | None = None
    quotas: dict[str, int] | None = Field(default=None, description="Groups per value of `by`")
    split: str | None = Field(default=None, description="Draw only from this split")
    uids: list[str] | None = Field(
        default=None, description="Exactly these groups (no draw); sorted when frozen"
    )
    list_sha256: str | None = Field(
        default=None, pattern=r"^[0-9a-f]{64}$", description="SHA-256 of the list they came from"
    )

    @model_validator(mode="after")
    def _check(self):
        if self.uids is not None:
            if self.by is not None or self.split is not None:
                raise ValueError("a list of uids takes no by, quotas or split")
            if len(set(self.uids)) != len(self.uids):
                raise ValueError("the list of uids names a group twice")
            if len(self.uids) != self.n_groups:
                raise ValueError(
                    f"the list names {len(self.uids)} groups, not n_groups {self.n_groups}"
                )
            for u in self.uids:
                try:
                    uuid.UUID(u)
                except ValueError:
                    raise ValueError(f"{u!r} is not a group uid") from None
        elif self.list_sha256 is not None:
            raise ValueError("list_sha256 goes with a list of uids")
        if (self.by is None) != (self.quotas is None):
            raise ValueError("give by and quotas together, or neither")
        if self.quotas is not None:
            if any(q < 0 for q in self.quotas.values()):
                raise ValueError("quotas cannot be negative")
            if sum(self.quotas.values()) != self.n_groups:
                raise ValueError(
                    f"the quotas add up to {sum(self.quotas.values())}, not n_groups "
                    f"{self.n_groups}"
                )
        return self


def design_clean(params) -> dict:
    try:
        design = QaGroupDesign.model_validate(dict(params))
    except (pydantic.ValidationError, TypeError, ValueError) as exc:
        raise ValidationError({"design": str(exc)}) from None
    dumped = design.model_dump(mode="json")
    if design.uids is None:  # the designs frozen before lists existed keep their exact bytes
        dumped.pop("uids")
        dumped.pop("list_sha256")
    else:
        dumped["uids"] = sorted(str(uuid.UUID(u)) for u in design.uids)
    return dumped


def uids_design(uids, *, list_sha256: str | None = None) -> dict:
    """The design of a manifest of exactly these groups."""
    uids = list(uids)
    design = {"n_groups": len(uids), "uids": uids}
    if list_sha256 is not None:
        design["list_sha256"] = list_sha256
    return design


def draw(*, group_set: QaGroupSet, params, seed: int) -> list[str]:
    """The drawn group uids (ascending); ValidationError naming the constraint that fails."""
    design = QaGroupDesign.model_validate(design_clean(params))
    rows = QaGroup.objects.filter(group_set=group_set)
    if design.uids is not None:
        found = {str(u) for u in rows.filter(uid__in=design.uids).values_list("uid", flat=True)}
        missing = [u for u in design.uids if u not in found]
        if missing:
            raise ValidationError(
                {"design": f"{len(missing)} group(s) of the list are not in QA group set "
                 f"{group_set.name}, e.g. {missing[0]}"}
            )  # fmt: skip
        return sorted(design.uids)
    if design.split:
        rows = rows.filter(split=design.split)
    members: dict[str, list[str]] = {}
    value_of: dict[str, str] = {}
    for uid, turns, structure, category, modality in rows.values_list(
        "uid", "turn_count", "structure", "category", "modality"
    ):
        key = str(uid)
        members[key] = [f"{key}:{t}" for t in range(turns)]
        value_of[key] = {"structure": structure, "category": category, "modality": modality}.get(
            design.by or "", ""
        )
    try:
        if design.by is None:
            return sample_groups(members, n_groups=design.n_groups, seed=seed)
        strata: dict[str, dict[str, list[str]]] = defaultdict(dict)
        for key, turns in members.items():
            strata[value_of[key]][key] = turns
        unknown = sorted(set(design.quotas) - set(strata))
        if unknown:
            raise Infeasible(f"{design.by} {unknown[0]} has a quota but no groups")
        drawn: list[str] = []
        for value in sorted(design.quotas):
            if design.quotas[value]:
                try:
                    drawn += sample_groups(strata[value], n_groups=design.quotas[value], seed=seed)
                except Infeasible:
                    raise Infeasible(
                        f"{design.by} {value} has {len(strata[value])} groups, fewer than its "
                        f"quota of {design.quotas[value]}"
                    ) from None
        return sorted(drawn)
    except Infeasible as exc:
        raise ValidationError({"design": str(exc)}) from None


@transaction.atomic
def qa_manifest_freeze(*, group_set: QaGroupSet, name: str, seed: int, params, author) -> Manifest:
    """Draw complete groups and freeze them as a ``qa_review`` manifest (nothing written if the
    name is taken or the design cannot be met)."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SAFE_INTEGER:
        raise ValidationError({"seed": "Use an integer from 0 to 2**53 - 1."})
    if not group_set.is_frozen:
        raise ValidationError({"group_set": "Manifests draw from frozen QA group sets only."})
    if Manifest.objects.filter(name=name).exists():
        raise ValidationError({"name": f"A manifest named {name} already exists."})
    Manifest(name=name).clean_fields(
        exclude=[f.name for f in Manifest._meta.fields if f.name != "name"]
    )
    design = design_clean(params)
    uids = draw(group_set=group_set, params=design, seed=seed)
    manifest = Manifest.objects.create(
        name=name,
        kind=Kind.QA_REVIEW,
        method=Method.COMPLETE_GROUPS,
        seed=seed,
        release=None,
        frozen_by=author,
    )
    QaManifestSource.objects.create(manifest=manifest, group_set=group_set)
    ManifestSample.objects.bulk_create(
        ManifestSample(
            manifest=manifest, release_step=None, sample_id=uuid.UUID(u), duration_bin=0, group=u
        )
        for u in uids
    )
    stream = LineStream()
    for record in set_records(group_set, uids):
        stream.add(record)
    header = build_manifest(
        kind=Kind.QA_REVIEW.value,
        name=name,
        record_format=RECORD_FORMAT,
        stream=stream,
        method=Method.COMPLETE_GROUPS.value,
        seed=seed,
        design=design,
        release={
            "name": group_set.name,
            "manifest_sha256": group_set.manifest_sha256,
            "sample_list_sha256": group_set.sample_list_sha256,
        },
    )
    text = canonical_bytes(header)
    manifest.sample_count = stream.count
    manifest.sample_list_sha256 = stream.sample_list_sha256
    manifest.records_sha256 = stream.records_sha256
    manifest.manifest_text = text.decode("utf-8")
    manifest.manifest_sha256 = sha256_hex(text)
    manifest.frozen_at = now()
    manifest.save()
    return manifest


def qa_manifest_uids(manifest: Manifest) -> list[str]:
    return sorted(str(u) for u in manifest.samples.values_list("sample_id", flat=True))


def qa_bundle_files(manifest: Manifest) -> dict[str, bytes]:
    """``manifest.json``, ``samples.txt``, ``groups.jsonl`` and ``SHA256SUMS``: enough to
    recompute both hashes without this software."""
    source = QaManifestSource.objects.select_related("group_set").get(manifest=manifest)
    uids = qa_manifest_uids(manifest)
    files = {
        "manifest.json": manifest.manifest_text.encode("utf-8"),
        "samples.txt": "".join(f"{u}\n" for u in uids).encode("utf-8"),
        "groups.jsonl": qa_export_bytes(group_set=source.group_set, uids=uids),
    }
    sums = "".join(f"{sha256_hex(files[n])}  {n}\n" for n in sorted(files))
    files["SHA256SUMS"] = sums.encode("utf-8")
    return files


def qa_manifest_export(*, manifest: Manifest, path: Path) -> Path:
    """The bundle as a new directory."""
    path = Path(path)
    files = qa_bundle_files(manifest)
    path.mkdir(parents=False, exist_ok=False)
    for name, data in files.items():
        (path / name).write_bytes(data)
    return path


def qa_manifest_zip(*, manifest: Manifest):
    """The bundle as an anonymous temporary .zip, rewound (the admin's download)."""
    import tempfile
    import zipfile

    target = tempfile.TemporaryFile()  # noqa: SIM115 - the caller (a FileResponse) closes it
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in sorted(qa_bundle_files(manifest).items()):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    target.seek(0)
    return target

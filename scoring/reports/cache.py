"""Reports kept by the SHA-256 of the canonical bytes of their inputs (studio/canonical.py).

The inputs are small: the definition (conditions, contrasts, seed, replicates, packages, the
manifest's hashes, endpoints) and a fingerprint of every run read (a finished run's status and
finish time; a running or cancelled run's items, done, ok and last item's finish time:
``provenance.runs_fingerprint``), so a repeated request reads a few rows. A
changed input makes a new key; the stored bytes of a key never change."""

from __future__ import annotations

import json
from collections.abc import Callable

from django.db import IntegrityError, transaction

from scoring.models import ReportCache
from studio import services as studio_services
from studio.canonical import canonical_bytes, sha256_hex


def dumps(body: dict) -> str:
    """The report's bytes: sorted keys, no spaces, no NaN (missing numbers are null)."""
    return json.dumps(
        body, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )


def inputs_key(kind: str, inputs: dict) -> str:
    return sha256_hex(canonical_bytes({"kind": kind, "inputs": inputs}))


def cached_report(
    *, kind: str, subject: str, inputs: dict, compute: Callable[[], dict], fresh: bool = False
) -> tuple[str, bool]:
    """The report's JSON text and whether it came from the cache. ``compute`` runs only when no
    report of these inputs is stored (or with ``fresh``, which replaces nothing: the stored row
    wins a race and is what every caller gets)."""
    key = inputs_key(kind, inputs)
    if not fresh:
        row = ReportCache.objects.filter(inputs_sha256=key).only("body").first()
        if row is not None:
            return row.body, True
    now = studio_services.now()
    body = compute()
    body["inputs_sha256"] = key
    body["computed_at"] = now.isoformat()
    text = dumps(body)
    if fresh:
        return text, False
    try:
        with transaction.atomic():
            ReportCache.objects.create(
                kind=kind, subject=subject, inputs_sha256=key, body=text, computed_at=now
            )
    except IntegrityError:  # computed at the same time elsewhere: theirs is the stored one
        return ReportCache.objects.get(inputs_sha256=key).body, True
    return text, False

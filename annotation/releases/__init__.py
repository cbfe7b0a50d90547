"""Frozen releases: freeze, correct, export, import (services) and bundles (format)."""

from annotation.releases.bundle import (
    BundleError,
    BundleHashes,
    VerifyReport,
    bundle_export,
    bundle_records,
    bundle_verify,
    bundle_write,
    bundle_zip,
    bundle_zip_tempfile,
)
from annotation.releases.services import (
    RECORD_FIELDS,
    RECORD_FORMAT,
    RECORD_ROW_FIELDS,
    release_correct,
    release_create,
    release_export,
    release_freeze,
    release_import,
    release_record,
    release_records,
)

__all__ = [
    "RECORD_FIELDS",
    "RECORD_FORMAT",
    "RECORD_ROW_FIELDS",
    "BundleError",
    "BundleHashes",
    "VerifyReport",
    "bundle_export",
    "bundle_records",
    "bundle_verify",
    "bundle_write",
    "bundle_zip",
    "bundle_zip_tempfile",
    "release_correct",
    "release_create",
    "release_export",
    "release_freeze",
    "release_import",
    "release_record",
    "release_records",
]

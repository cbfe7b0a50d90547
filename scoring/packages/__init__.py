"""Prompt packages: hashed artefacts (ours ship in ``builtin/``), their output contracts, and the
messages a call sends."""

from scoring.packages.contracts import (
    CONTRACTS,
    NEXT_BANDS,
    REASON_CODES,
    ParseFailure,
    contract_schema,
    parse_reply,
)
from scoring.packages.store import (
    BUILTIN_DIR,
    Package,
    PackageError,
    package_check,
    package_read,
    package_register,
    package_resolve,
    package_verified,
    packages_sync_builtin,
    render_dialogue,
    render_messages,
    response_format,
)

__all__ = [
    "BUILTIN_DIR",
    "CONTRACTS",
    "NEXT_BANDS",
    "REASON_CODES",
    "Package",
    "PackageError",
    "ParseFailure",
    "contract_schema",
    "package_check",
    "package_read",
    "package_register",
    "package_resolve",
    "package_verified",
    "packages_sync_builtin",
    "parse_reply",
    "render_dialogue",
    "render_messages",
    "response_format",
]

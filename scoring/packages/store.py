"""Prompt packages as hashed artefacts: load, check, register, resolve, verify, render.

A package file is one JSON object (docs/models.md):

    {"format": "intent-studio.prompt-package/1", "name": ..., "purpose": ..., "description": ...,
     "system": ..., "user_template": ..., "output_schema": {...}, "sampling": {...}}

``system`` and ``user_template`` may be written as a list of lines; they are joined with ``\\n``
first, so both spellings hash the same. The package's SHA-256 is that of the canonical bytes of
the whole object (``studio/canonical.py``). The user template holds ``{{input}}`` exactly once:
the data of a call (references, candidates, evidence) goes there as one JSON document, so a label
or a prediction is always a JSON string and never part of the instructions. The system prompt may
hold ``{{output_schema}}``, replaced by the contract's JSON schema.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from annotation.models.releases import NAME_VALIDATOR, name_check
from scoring.models import PromptPackage, Purpose
from scoring.packages.contracts import contract_schema
from studio.canonical import canonical_bytes, sha256_hex

FORMAT = "intent-studio.prompt-package/1"
BUILTIN_DIR = Path(__file__).resolve().parent / "builtin"
_FIELDS = {
    "format",
    "name",
    "purpose",
    "description",
    "system",
    "user_template",
    "output_schema",
    "sampling",
    "media_window",
}
_OPTIONAL = {"description", "media_window"}
# QA dialogues: which stretch of the source a turn's media show (docs/qa-evaluation.md)
MEDIA_WINDOWS = ("group", "turn")
_SAMPLING = {"temperature": (0, 2), "max_tokens": (1, 65536), "seed": (0, 2**31 - 1)}
_PLACEHOLDER = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")


class PackageError(ValueError):
    """A package file that is not a valid package, or one whose bytes changed."""


@dataclass(frozen=True)
class Package:
    """A checked package: its canonical content and hash."""

    data: dict
    sha256: str

    @property
    def name(self) -> str:
        return self.data["name"]

    @property
    def purpose(self) -> str:
        return self.data["purpose"]

    @property
    def sampling(self) -> dict:
        return dict(self.data["sampling"])

    @property
    def media_window(self) -> str:
        """QA dialogues: ``group`` (the group's clip) or ``turn`` (the turn's own evidence)."""
        return self.data.get("media_window", "group")


def _text(value, field: str) -> str:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = "\n".join(value)
    if not isinstance(value, str) or not value.strip():
        raise PackageError(f"{field} must be text (or a list of lines) and not empty")
    return value


def _placeholders(text: str) -> list[str]:
    return _PLACEHOLDER.findall(text)


def package_check(raw: dict) -> Package:
    """Validate a parsed package file; returns it in canonical form with its hash."""
    if not isinstance(raw, dict):
        raise PackageError("a package is one JSON object")
    unknown = sorted(set(raw) - _FIELDS)
    if unknown:
        raise PackageError(f"unknown field(s): {', '.join(unknown)}")
    missing = sorted(_FIELDS - set(raw) - _OPTIONAL)
    if missing:
        raise PackageError(f"missing field(s): {', '.join(missing)}")
    if raw["format"] != FORMAT:
        raise PackageError(f"format must be {FORMAT!r}")
    name = raw["name"]
    try:
        name_check(name, what="name")
    except ValidationError:
        raise PackageError(f"name {name!r}: {NAME_VALIDATOR.message}") from None
    if raw["purpose"] not in Purpose.values:
        raise PackageError(f"purpose must be one of {', '.join(Purpose.values)}")
    system = _text(raw["system"], "system")
    user = _text(raw["user_template"], "user_template")
    if _placeholders(user) != ["input"]:
        raise PackageError("user_template must hold {{input}} exactly once and no other {{...}}")
    if any(p != "output_schema" for p in _placeholders(system)) or len(_placeholders(system)) > 1:
        raise PackageError("system may hold {{output_schema}} once and no other {{...}}")
    if raw["output_schema"] != contract_schema(raw["purpose"]):
        raise PackageError(
            f"output_schema must be the {raw['purpose']} contract's schema "
            "(print it with `manage.py package_add --print-schema PURPOSE`)"
        )
    sampling = raw["sampling"]
    if not isinstance(sampling, dict) or "temperature" not in sampling:
        raise PackageError("sampling must be an object with at least temperature")
    for key, value in sampling.items():
        if key not in _SAMPLING:
            raise PackageError(f"sampling.{key} is not supported; use {', '.join(_SAMPLING)}")
        low, high = _SAMPLING[key]
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise PackageError(f"sampling.{key} must be an integer from {low} to {high}")
    description = raw.get("description", "")
    if not isinstance(description, str):
        raise PackageError("description must be text")
    media_window = raw.get("media_window")
    if media_window is not None:
        if raw["purpose"] != Purpose.QA_PREDICTION:
            raise PackageError("media_window is an option of qa_prediction packages only")
        if media_window not in MEDIA_WINDOWS:
            raise PackageError(f"media_window must be one of {', '.join(MEDIA_WINDOWS)}")
    data = {
        "format": FORMAT,
        "name": name,
        "purpose": raw["purpose"],
        "description": description,
        "system": system,
        "user_template": user,
        "output_schema": raw["output_schema"],
        "sampling": dict(sampling),
    }
    if media_window is not None:  # absent from packages without it: their hash is unchanged
        data["media_window"] = media_window
    try:
        digest = sha256_hex(canonical_bytes(data))
    except (TypeError, ValueError) as exc:
        raise PackageError(f"the package cannot be hashed: {exc}") from None
    return Package(data=data, sha256=digest)


def package_read(path: Path) -> Package:
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise PackageError(f"{path} cannot be read: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise PackageError(f"{path} is not JSON: {exc}") from None
    return package_check(raw)


def package_register(*, path: Path, user=None, builtin: bool = False) -> tuple[PromptPackage, bool]:
    """Register the package in ``path`` as the next version of its name; (row, created). The
    same bytes registered again return the existing row."""
    package = package_read(path)
    existing = PromptPackage.objects.filter(sha256=package.sha256).first()
    if existing is not None:
        return existing, False
    content = canonical_bytes(package.data).decode("utf-8")
    for _ in range(3):  # two registrations racing for the same next version number
        try:
            with transaction.atomic():
                last = PromptPackage.objects.filter(name=package.name).order_by("-version").first()
                row = PromptPackage.objects.create(
                    name=package.name,
                    version=(last.version + 1) if last else 1,
                    purpose=package.purpose,
                    sha256=package.sha256,
                    content=content,
                    source_path=f"builtin/{Path(path).name}" if builtin else str(path),
                    builtin=builtin,
                    registered_by=user if user is not None and user.is_authenticated else None,
                )
            return row, True
        except IntegrityError:
            existing = PromptPackage.objects.filter(sha256=package.sha256).first()
            if existing is not None:
                return existing, False
    raise PackageError(f"could not register {path}: its version number kept being taken")


def packages_sync_builtin() -> list[PromptPackage]:
    """Register every shipped package file whose bytes are not registered yet (after migrate)."""
    created = []
    for path in sorted(BUILTIN_DIR.glob("*.json")):
        row, new = package_register(path=path, builtin=True)
        if new:
            created.append(row)
    return created


def package_resolve(ref: str) -> PromptPackage:
    """A package by name (its newest version), ``name@version``, or SHA-256 (full, or a prefix
    of at least 12 hex digits)."""
    ref = ref.strip()
    if re.fullmatch(r"[0-9a-f]{12,64}", ref):
        rows = list(PromptPackage.objects.filter(sha256__startswith=ref)[:2])
        if len(rows) == 1:
            return rows[0]
        if len(rows) > 1:
            raise PackageError(f"{ref} is the start of several package hashes; give more digits")
    name, _, version = ref.partition("@")
    rows = PromptPackage.objects.filter(name=name)
    if version:
        if not version.isdigit():
            raise PackageError(f"{ref}: the version after @ is a number")
        rows = rows.filter(version=int(version))
    row = rows.order_by("-version").first()
    if row is None:
        raise PackageError(f"no prompt package {ref!r} (see the admin's prompt packages)")
    return row


def _source_file(row: PromptPackage) -> Path | None:
    if not row.source_path:
        return None
    if row.builtin:  # shipped files are named relative to this package, wherever it is installed
        return BUILTIN_DIR / Path(row.source_path).name
    return Path(row.source_path)


def package_verified(row: PromptPackage) -> Package:
    """The package of ``row``, refused if its stored bytes or its file no longer match its hash."""
    try:
        stored = package_check(json.loads(row.content))
    except (json.JSONDecodeError, PackageError) as exc:
        raise PackageError(f"package {row}: stored content is not a valid package: {exc}") from None
    if stored.sha256 != row.sha256:
        raise PackageError(f"package {row}: stored content hashes to {stored.sha256}, not its hash")
    source = _source_file(row)
    if source is not None and source.is_file():
        try:
            on_disk = package_read(source)
        except PackageError as exc:
            raise PackageError(
                f"package {row.name} v{row.version}: its file {row.source_path} changed and is "
                f"no longer a valid package ({exc}); refused"
            ) from None
        if on_disk.sha256 != row.sha256:
            raise PackageError(
                f"package {row.name} v{row.version}: its file {row.source_path} changed on disk "
                f"(now {on_disk.sha256[:12]}, registered {row.sha256[:12]}); refused. Register "
                "the new bytes with `manage.py package_add FILE` (a new version) and use that."
            )
    return stored


def render_messages(package: Package, *, data: dict, media_parts: list[dict]) -> list[dict]:
    """The chat messages of one call: the system prompt, then the user template with the call's
    data as one JSON document, followed by the media parts (images or a video)."""
    schema = json.dumps(package.data["output_schema"], ensure_ascii=False, sort_keys=True)
    system = package.data["system"].replace("{{output_schema}}", schema, 1)
    document = json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2)
    text = _PLACEHOLDER.sub(lambda _m: document, package.data["user_template"], count=1)
    if not media_parts:
        user: str | list[dict] = text
    else:
        user = [{"type": "text", "text": text}, *media_parts]
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def render_dialogue(package: Package, *, data: dict, media_parts: list[dict]) -> list[dict]:
    """The chat messages of one turn of a dialogue: the system prompt, then for every earlier
    turn its question (the user template with the turn's document) and the model's own reply to
    it, exactly as it was returned; then the current turn's question. The media parts follow the
    first question, so the clip opens the dialogue. ``data`` is ``{"dialogue": [earlier turns,
    each its document and its "reply"], "turn": the current turn's document}``."""
    schema = json.dumps(package.data["output_schema"], ensure_ascii=False, sort_keys=True)
    system = package.data["system"].replace("{{output_schema}}", schema, 1)
    messages: list[dict] = [{"role": "system", "content": system}]
    asked = [*data["dialogue"], data["turn"]]
    for n, turn in enumerate(asked):
        shown = {k: v for k, v in turn.items() if k != "reply"}
        document = json.dumps(shown, ensure_ascii=False, sort_keys=True, indent=2)
        text = _PLACEHOLDER.sub(lambda _m, d=document: d, package.data["user_template"], count=1)
        if n == 0 and media_parts:
            parts = [{"type": "text", "text": text}, *media_parts]
            messages.append({"role": "user", "content": parts})
        else:
            messages.append({"role": "user", "content": text})
        if n < len(asked) - 1:
            messages.append({"role": "assistant", "content": turn["reply"]})
    return messages


def response_format(package: Package) -> dict:
    """``response_format`` for endpoints that accept a JSON schema."""
    return {
        "type": "json_schema",
        "json_schema": {
            "name": package.purpose,
            "schema": package.data["output_schema"],
            "strict": True,
        },
    }

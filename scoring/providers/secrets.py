"""The API key: read from the worker's environment at call time, never stored, and cut out of
anything that is kept (responses, errors) in case a provider echoes it back."""

from __future__ import annotations

import os

REDACTED = "[redacted]"


class MissingKey(RuntimeError):
    pass


def api_key(env_name: str) -> str:
    """The key in ``env_name`` (empty name: no key)."""
    if not env_name:
        return ""
    value = os.environ.get(env_name, "")
    if not value:
        raise MissingKey(
            f"the environment variable {env_name} (the endpoint's API key) is not set "
            "in the worker's environment"
        )
    return value


def redact(text: str, key: str) -> str:
    """``text`` without the key or any 8+ character piece of it a provider might quote."""
    if not key or not text:
        return text
    text = text.replace(key, REDACTED)
    if len(key) >= 16:
        # Providers quote keys partly ("sk-abc...wxyz"): drop any 8-character run of the key.
        for i in range(len(key) - 7):
            piece = key[i : i + 8]
            if piece in text:
                text = text.replace(piece, REDACTED)
    return text

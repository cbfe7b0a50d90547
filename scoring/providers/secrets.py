"""The API key: read from the worker's environment at call time, never stored. Everything kept
from an answer has every echo of it cut out by ``studio.text`` (the one rule for text from
outside; the client passes the key as the secret)."""

from __future__ import annotations

import os


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

"""The call kinds a run's items can be, each with its handler: how an item's call is prepared
(``prepare``), what a parsed reply stores (``accept``) and what a failed call leaves
(``failed``). Predictions are the runs' own (``scoring.runs.execute.PredictionHandler``); the
packages above ``runs`` register theirs from ``ScoringConfig.ready()`` (the four judges:
``scoring.judges.handlers``), so the drivers never import the packages that build on them."""

from __future__ import annotations

_HANDLERS: dict[str, type] = {}


def call_kind_register(kind: str, handler: type) -> None:
    """Register the handler class of run kind ``kind``; registering it again replaces it."""
    _HANDLERS[kind] = handler


def call_handler(kind: str):
    """A new handler of a registered kind (``KeyError`` for one nobody registered)."""
    return _HANDLERS[kind]()

"""Prediction runs: items, cache keys, provenance, progress, export; the drivers that work off any
run (predictions and judges)."""

from scoring.runs.execute import execute_item, item_cache_key, run_drive
from scoring.runs.lifecycle import endpoint_config
from scoring.runs.services import (
    CONDITIONS,
    RunError,
    media_profile,
    run_cancel,
    run_predict,
    run_resume,
    scene_name,
)

__all__ = [
    "CONDITIONS",
    "RunError",
    "endpoint_config",
    "execute_item",
    "item_cache_key",
    "media_profile",
    "run_cancel",
    "run_drive",
    "run_predict",
    "run_resume",
    "scene_name",
]

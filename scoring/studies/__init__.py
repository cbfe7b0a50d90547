"""Controlled studies: models x conditions on one frozen set of steps, judged once per
condition, reported as condition scores and paired contrasts (docs/reports.md)."""

from scoring.studies.progress import progress_line, study_progress
from scoring.studies.services import (
    StudyError,
    run_name,
    study_advance,
    study_create,
    study_start,
)
from scoring.studies.templates import TEMPLATES

__all__ = [
    "TEMPLATES",
    "StudyError",
    "progress_line",
    "run_name",
    "study_advance",
    "study_create",
    "study_progress",
    "study_start",
]

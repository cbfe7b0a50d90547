from annotation.models.assignments import VideoAssignment
from annotation.models.releases import FrozenError, Release, ReleaseStep
from annotation.models.steps import (
    FIELD_NAMES,
    LABEL_FIELDS,
    TAG_FIELDS,
    TIME_FIELDS,
    MicroStep,
    StepRevision,
)

__all__ = [
    "FIELD_NAMES",
    "LABEL_FIELDS",
    "TAG_FIELDS",
    "TIME_FIELDS",
    "FrozenError",
    "MicroStep",
    "Release",
    "ReleaseStep",
    "StepRevision",
    "VideoAssignment",
]

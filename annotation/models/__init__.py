from annotation.models.assignments import VideoAssignment
from annotation.models.releases import FrozenError, Release, ReleaseStep
from annotation.models.steps import LABEL_FIELDS, TIME_FIELDS, MicroStep, StepRevision

__all__ = [
    "LABEL_FIELDS",
    "TIME_FIELDS",
    "FrozenError",
    "MicroStep",
    "Release",
    "ReleaseStep",
    "StepRevision",
    "VideoAssignment",
]

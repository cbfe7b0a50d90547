"""Scoring's tables: endpoints, file digests, prompt packages, runs with their items, judgements."""

from scoring.models.digests import FileDigest
from scoring.models.endpoints import Endpoint, MediaInterface
from scoring.models.judgements import Judgement, SubjectKind
from scoring.models.packages import PromptPackage, Purpose
from scoring.models.runs import ItemState, Outcome, Run, RunItem, RunKind, RunStatus

__all__ = [
    "Endpoint",
    "FileDigest",
    "ItemState",
    "Judgement",
    "MediaInterface",
    "Outcome",
    "PromptPackage",
    "Purpose",
    "Run",
    "RunItem",
    "RunKind",
    "RunStatus",
    "SubjectKind",
]

"""Scoring's tables: endpoints, file digests, answer embeddings, prompt packages, runs with
their items, judgements, imported benchmarks, QA audits."""

from scoring.models.audits import QaAudit
from scoring.models.digests import FileDigest
from scoring.models.embeddings import TextEmbedding
from scoring.models.endpoints import Endpoint, MediaInterface
from scoring.models.judgements import Judgement, SubjectKind
from scoring.models.packages import PromptPackage, Purpose
from scoring.models.published import ImportedBenchmark, ImportedMedium
from scoring.models.reports import ReportCache
from scoring.models.runs import ItemState, Outcome, Run, RunItem, RunKind, RunStatus
from scoring.models.studies import Study, StudyModel, StudyRun, StudyTemplate

__all__ = [
    "Endpoint",
    "FileDigest",
    "ImportedBenchmark",
    "ImportedMedium",
    "ItemState",
    "Judgement",
    "MediaInterface",
    "Outcome",
    "PromptPackage",
    "Purpose",
    "QaAudit",
    "ReportCache",
    "Run",
    "RunItem",
    "RunKind",
    "RunStatus",
    "Study",
    "StudyModel",
    "StudyRun",
    "StudyTemplate",
    "SubjectKind",
    "TextEmbedding",
]

"""The four judges (reference-based, reference-free video, blind LLM rater, QA) over generic
subjects, and the scores computed from their judgements."""

from scoring.judges.scores import benchmark_scores, execution_failures, qa_summary
from scoring.judges.services import PURPOSE, judge_start
from scoring.judges.subjects import (
    Subject,
    SubjectError,
    step_reference,
    subjects_from_qa_file,
    subjects_from_runs,
)
from scoring.judges.units import batch_sizes, blind_id

__all__ = [
    "PURPOSE",
    "Subject",
    "SubjectError",
    "batch_sizes",
    "benchmark_scores",
    "blind_id",
    "execution_failures",
    "judge_start",
    "qa_summary",
    "step_reference",
    "subjects_from_qa_file",
    "subjects_from_runs",
]

"""Reports computed from stored runs: every table with its provenance, cached by the hash of
its inputs (docs/reports.md)."""

from scoring.reports.study import report_csv, study_report

__all__ = ["report_csv", "study_report"]

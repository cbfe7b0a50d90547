"""QA scoring: the QA-group review report's pages (the report itself:
scoring.reports.qa_review)."""

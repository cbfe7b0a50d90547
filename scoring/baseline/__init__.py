"""The human baseline's pages: the baseline campaigns and each one's report (the report itself:
scoring.reports.baseline and baseline_inputs)."""

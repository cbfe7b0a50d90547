"""Campaigns: one kind of human work over one frozen manifest (see docs/review.md).

Generic machinery reused by every kind (the audit, the human baseline, judge validation, the
boundary audit, the QA review): who takes part, how many distinct people judge each item, the
per-person order, leases on items, drafts, immutable submissions, the exposure log and progress.
A kind plugs in through ``review.campaigns.kinds`` (payload validation, exclusions, its page).
"""

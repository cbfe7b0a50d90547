"""The review app's admin: each concept registers its models in its own ``admin`` module,
imported here (Django's admin discovery imports ``review.admin``)."""

# The audit's adjudications and corrections (read-only lists).
from review.audit import admin as _audit_admin  # noqa: F401
from review.campaigns import admin as _campaigns_admin  # noqa: F401  (registers Campaign)
from review.judgeval import admin as _judgeval_admin  # noqa: F401

# Releases, sample designs and manifests: freeze, preview, list, download bundles.
from review.manifests import admin as _manifests_admin  # noqa: F401
from review.qa import admin as _qa_admin  # noqa: F401

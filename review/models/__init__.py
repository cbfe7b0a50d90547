"""The review app's models, one module per concept. Importing them here registers them with
the app (app label ``review``). Other apps may import any of them from here; inside ``review``
each concept imports the other concepts' own modules."""

# The audit's own records (adjudications, corrections), stored apart from the raw decisions.
from review.audit.models import Adjudication, Correction  # noqa: F401

# Campaigns: the one mechanism of human work over a frozen manifest.
from review.campaigns.models import (  # noqa: F401
    Assignment,
    Campaign,
    CampaignItem,
    Exclusion,
    Exposure,
    ItemOrder,
    Submission,
)
from review.judgeval.models import JudgeTriplet  # noqa: F401

# Sample designs and the frozen manifests drawn with them.
from review.manifests.models import (  # noqa: F401
    Kind,
    Manifest,
    ManifestQuerySet,
    ManifestSample,
    ManifestSampleQuerySet,
    Method,
    SampleDesign,
)

# QA groups, their versions and the reviewers' edits (second paper).
from review.qa.models import (  # noqa: F401
    QaEdit,
    QaEvidence,
    QaGroup,
    QaGroupSet,
    QaManifestSource,
    QaTurn,
)

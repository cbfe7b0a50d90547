"""The rater's blind baseline item page (``review.campaigns.item_views``), one part per item.
Flagging a broken item is a submission of ``{"broken": true}`` through the same submit."""

from review.baseline.blind import rater_state
from review.baseline.kind import KIND, PART
from review.campaigns.item_views import ItemPages

ITEM_PAGES = ItemPages(
    kind=KIND, namespace="baseline", template="baseline/item.html", state=rater_state, part=PART
)

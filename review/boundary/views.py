"""The boundary reviewer's blind item page (``review.campaigns.item_views``): one part, in which
every condition window of the step is ruled."""

from review.boundary.blind import blind_state
from review.boundary.kind import KIND, PART
from review.campaigns.item_views import ItemPages

ITEM_PAGES = ItemPages(
    kind=KIND, namespace="boundary", template="boundary/item.html", state=blind_state, part=PART
)

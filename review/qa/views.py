"""The QA reviewer's item page (``review.campaigns.item_views``): one unnamed part; a submission
also stores each proposed edit beside the original group (the kind's ``on_submit``, which the API
runs too)."""

from review.campaigns.item_views import ItemPages
from review.qa.blind import review_state
from review.qa.kind import KIND

ITEM_PAGES = ItemPages(
    kind=KIND,
    namespace="qa",
    template="qa/item.html",
    state=review_state,
    part="",
)

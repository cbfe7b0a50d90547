"""The QA reviewer's item page (``review.campaigns.item_views``): one unnamed part; a submission
also stores each proposed edit beside the original group (``qa_review_submit``)."""

from review.campaigns.item_views import ItemPages
from review.qa.blind import review_state
from review.qa.kind import KIND
from review.qa.services import qa_review_submit

ITEM_PAGES = ItemPages(
    kind=KIND,
    namespace="qa",
    template="qa/item.html",
    state=review_state,
    part="",
    submit=qa_review_submit,
)

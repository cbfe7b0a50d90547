"""The rater's blind rating page (``review.campaigns.item_views``): the part (first, second
triplet) comes with each draft and submission. The state is the same whoever asks."""

from review.campaigns.item_views import ItemPages
from review.judgeval.blind import blind_state
from review.judgeval.kind import KIND

ITEM_PAGES = ItemPages(
    kind=KIND,
    namespace="judgeval",
    template="judgeval/item.html",
    state=lambda *, assignment, user: blind_state(assignment=assignment),
)

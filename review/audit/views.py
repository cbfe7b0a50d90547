"""The reviewer's blind audit item page (``review.campaigns.item_views``): the part (phase1,
phase2) comes with each draft and submission; the campaign's own page claims items."""

from review.audit.blind import blind_state
from review.audit.kind import KIND
from review.campaigns.item_views import ItemPages

ITEM_PAGES = ItemPages(kind=KIND, namespace="audit", template="audit/item.html", state=blind_state)

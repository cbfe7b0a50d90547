"""The judge-validation rater's pages, mounted at judgeval/ by studio/urls.py. Item URLs hold
only the assignment's opaque token."""

from django.urls import re_path

from review.judgeval import views

app_name = "judgeval"

ASSIGNMENT_RE = r"(?P<token>[A-Za-z0-9_-]{20,64})"

urlpatterns = [
    re_path(rf"^i/{ASSIGNMENT_RE}/$", views.rating_item, name="item"),
    re_path(rf"^i/{ASSIGNMENT_RE}/state$", views.rating_item_state, name="item-state"),
    re_path(rf"^i/{ASSIGNMENT_RE}/draft$", views.rating_item_draft, name="item-draft"),
    re_path(rf"^i/{ASSIGNMENT_RE}/submit$", views.rating_item_submit, name="item-submit"),
    re_path(rf"^i/{ASSIGNMENT_RE}/renew$", views.rating_item_renew, name="item-renew"),
]

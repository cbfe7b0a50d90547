"""The rater's pages of a human baseline, mounted at baseline/ by studio/urls.py. Item URLs hold
only the assignment's opaque token. (The report pages are scoring's: scoring/urls.py.)"""

from django.urls import re_path

from review.baseline import views

app_name = "baseline"

ASSIGNMENT_RE = r"(?P<token>[A-Za-z0-9_-]{20,64})"

urlpatterns = [
    re_path(rf"^i/{ASSIGNMENT_RE}/$", views.baseline_item, name="item"),
    re_path(rf"^i/{ASSIGNMENT_RE}/state$", views.baseline_item_state, name="item-state"),
    re_path(rf"^i/{ASSIGNMENT_RE}/draft$", views.baseline_item_draft, name="item-draft"),
    re_path(rf"^i/{ASSIGNMENT_RE}/submit$", views.baseline_item_submit, name="item-submit"),
    re_path(rf"^i/{ASSIGNMENT_RE}/renew$", views.baseline_item_renew, name="item-renew"),
]

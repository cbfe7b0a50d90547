"""The QA review's pages, mounted at qa/ by studio/urls.py. A reviewer's item URLs hold only the
assignment's opaque token; the edits pages are the admin's."""

from django.urls import path, re_path

from review.qa import staff_views, views

app_name = "qa"

ASSIGNMENT_RE = r"(?P<token>[A-Za-z0-9_-]{20,64})"

urlpatterns = [
    re_path(rf"^i/{ASSIGNMENT_RE}/$", views.qa_item, name="item"),
    re_path(rf"^i/{ASSIGNMENT_RE}/state$", views.qa_item_state, name="item-state"),
    re_path(rf"^i/{ASSIGNMENT_RE}/draft$", views.qa_item_draft, name="item-draft"),
    re_path(rf"^i/{ASSIGNMENT_RE}/submit$", views.qa_item_submit, name="item-submit"),
    re_path(rf"^i/{ASSIGNMENT_RE}/renew$", views.qa_item_renew, name="item-renew"),
    path("sets/", staff_views.set_list, name="sets"),
    path("sets/<int:set_id>/", staff_views.set_page, name="set"),
]

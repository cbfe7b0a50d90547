"""The audit's pages, mounted at audit/ by studio/urls.py. A reviewer's item URLs hold only the
assignment's opaque token."""

from django.urls import path, re_path

from review.audit import staff_views, views

app_name = "audit"

ASSIGNMENT_RE = r"(?P<token>[A-Za-z0-9_-]{20,64})"

urlpatterns = [
    re_path(rf"^i/{ASSIGNMENT_RE}/$", views.audit_item, name="item"),
    re_path(rf"^i/{ASSIGNMENT_RE}/state$", views.audit_item_state, name="item-state"),
    re_path(rf"^i/{ASSIGNMENT_RE}/draft$", views.audit_item_draft, name="item-draft"),
    re_path(rf"^i/{ASSIGNMENT_RE}/submit$", views.audit_item_submit, name="item-submit"),
    re_path(rf"^i/{ASSIGNMENT_RE}/renew$", views.audit_item_renew, name="item-renew"),
    path("adjudicate/", staff_views.adjudication_queue_page, name="queue"),
    path(
        "adjudicate/<int:campaign_id>/<int:item_id>/",
        staff_views.adjudication_page,
        name="adjudicate",
    ),
    path("campaigns/", staff_views.report_list, name="reports"),
    path("campaigns/<int:campaign_id>/report/", staff_views.report_page, name="report"),
    path(
        "campaigns/<int:campaign_id>/corrections/",
        staff_views.corrections_page,
        name="corrections",
    ),
]

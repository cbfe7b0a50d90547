"""The boundary audit's pages, mounted at boundary/ by studio/urls.py. A reviewer's item URLs
hold only the assignment's opaque token."""

from django.urls import path, re_path

from review.audit.urls import ASSIGNMENT_RE
from review.boundary import staff_views, views

app_name = "boundary"

urlpatterns = [
    re_path(rf"^i/{ASSIGNMENT_RE}/$", views.boundary_item, name="item"),
    re_path(rf"^i/{ASSIGNMENT_RE}/state$", views.boundary_item_state, name="item-state"),
    re_path(rf"^i/{ASSIGNMENT_RE}/draft$", views.boundary_item_draft, name="item-draft"),
    re_path(rf"^i/{ASSIGNMENT_RE}/submit$", views.boundary_item_submit, name="item-submit"),
    re_path(rf"^i/{ASSIGNMENT_RE}/renew$", views.boundary_item_renew, name="item-renew"),
    path("adjudicate/", staff_views.adjudication_queue_page, name="queue"),
    path(
        "adjudicate/<int:campaign_id>/<int:item_id>/",
        staff_views.adjudication_page,
        name="adjudicate",
    ),
    path("campaigns/", staff_views.report_list, name="reports"),
    path("campaigns/<int:campaign_id>/report/", staff_views.report_page, name="report"),
]

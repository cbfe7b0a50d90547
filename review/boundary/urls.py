"""The boundary audit's pages, mounted at boundary/ by studio/urls.py. A reviewer's item URLs
hold only the assignment's opaque token."""

from django.urls import path

from review.boundary import staff_views, views

app_name = "boundary"

urlpatterns = [
    *views.ITEM_PAGES.urlpatterns(),
    path("adjudicate/", staff_views.adjudication_queue_page, name="queue"),
    path(
        "adjudicate/<int:campaign_id>/<int:item_id>/",
        staff_views.adjudication_page,
        name="adjudicate",
    ),
    path(
        "adjudicate/<int:campaign_id>/<int:item_id>/clips",
        staff_views.adjudication_clips,
        name="adjudicate-clips",
    ),
    path("campaigns/", staff_views.report_list, name="reports"),
    path("campaigns/<int:campaign_id>/report/", staff_views.report_page, name="report"),
]

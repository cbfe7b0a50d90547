"""The QA review's pages, mounted at qa/ by studio/urls.py. A reviewer's item URLs hold only the
assignment's opaque token; the edits pages are the admin's."""

from django.urls import path

from review.qa import staff_views, views

app_name = "qa"

urlpatterns = [
    *views.ITEM_PAGES.urlpatterns(),
    path("sets/", staff_views.set_list, name="sets"),
    path("sets/<int:set_id>/", staff_views.set_page, name="set"),
]

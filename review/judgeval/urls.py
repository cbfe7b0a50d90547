"""The judge-validation rater's pages, mounted at judgeval/ by studio/urls.py. Item URLs hold
only the assignment's opaque token."""

from review.judgeval import views

app_name = "judgeval"

urlpatterns = views.ITEM_PAGES.urlpatterns()

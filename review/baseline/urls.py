"""The rater's pages of a human baseline, mounted at baseline/ by studio/urls.py. Item URLs hold
only the assignment's opaque token. (The report pages are scoring's: scoring/urls.py.)"""

from review.baseline import views

app_name = "baseline"

urlpatterns = views.ITEM_PAGES.urlpatterns()

"""Participants' campaign pages; mounted at review/ by studio/urls.py."""

from django.urls import path

from review.campaigns import views

app_name = "campaigns"

urlpatterns = [
    path("campaigns/<int:campaign_id>/", views.campaign_next, name="next"),
]

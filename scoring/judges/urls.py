from django.urls import path

from scoring.judges import views

urlpatterns = [
    path("runs/<int:run_id>/judge/", views.run_judge, name="run-judge"),
]

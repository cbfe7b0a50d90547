"""The scoring pages; each package with pages owns its views and URLs, mounted here without a
namespace of their own (names stay ``scoring:run-detail`` etc.)."""

from django.urls import include, path

from scoring.baseline import urls as baseline_urls
from scoring.judges import urls as judges_urls
from scoring.judgeval import urls as judgeval_urls
from scoring.qa import urls as qa_urls
from scoring.reports import urls as reports_urls
from scoring.runs import urls as runs_urls
from scoring.studies import urls as studies_urls

app_name = "scoring"

urlpatterns = [
    # The judges' runs/<id>/judge/ before the runs' own runs/<id>/<action>/.
    path("", include(judges_urls)),
    path("", include(runs_urls)),
    path("", include(studies_urls)),
    path("", include(reports_urls)),
    path("", include(baseline_urls)),
    path("", include(judgeval_urls)),
    path("", include(qa_urls)),
]

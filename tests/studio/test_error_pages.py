"""403, 404 and 500 are styled pages that need no inline style or script (the CSP is enforced),
in development as in production, and the site has a favicon."""

import re

import pytest
from django.test import Client

from annotation.models import VideoAssignment


def assert_styled_error_page(response, status):
    html = response.content.decode()
    assert response.status_code == status
    assert f'data-status="{status}"' in html
    assert 'href="/static/css/studio.css"' in html and 'rel="icon"' in html
    assert "<style" not in html and " style=" not in html
    assert not re.search(r"<script(?![^>]*\bsrc=)", html), "an inline script"
    assert "script-src 'self'" in response["Content-Security-Policy"]
    assert "Traceback" not in html and "URLconf" not in html


@pytest.mark.parametrize("debug", [False, True], ids=["production", "development"])
def test_not_found_is_the_styled_page(client, settings, annotator, debug):
    settings.DEBUG = debug
    client.force_login(annotator)
    for url in ("/no-such-page/", "/annotate/videos/999999/"):
        response = client.get(url)
        assert_styled_error_page(response, 404)
        assert "Your home page lists what is" in response.content.decode()


@pytest.mark.parametrize("debug", [False, True], ids=["production", "development"])
def test_not_allowed_is_the_styled_page(settings, annotator, debug):
    settings.DEBUG = debug
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(annotator)
    response = strict.post("/logout/")
    assert_styled_error_page(response, 403)
    assert "security token" in response.content.decode()


@pytest.mark.urls("tests.studio.error_urls")
def test_a_server_error_is_the_styled_page(db, settings):
    settings.DEBUG = False
    client = Client(raise_request_exception=False)
    response = client.get("/boom/")
    assert_styled_error_page(response, 500)
    assert "a bug" not in response.content.decode()


def test_api_errors_stay_json_in_development(client, settings, make_video, annotator):
    settings.DEBUG = True
    client.force_login(annotator)
    response = client.get("/api/annotation/videos/999999/workspace/")
    assert response.status_code == 404 and response["Content-Type"] == "application/json"
    video = make_video()
    VideoAssignment.objects.create(video=video, annotator=annotator)
    assert client.get(f"/api/annotation/videos/{video.pk}/workspace/").status_code == 200


def test_the_favicon_is_served(client, db):
    response = client.get("/favicon.ico")
    assert response.status_code == 302 and response["Location"] == "/static/favicon.svg"


@pytest.mark.urls("tests.studio.error_urls")
@pytest.mark.parametrize("debug", [False, True], ids=["production", "development"])
def test_a_server_error_shows_a_rater_no_traceback_in_any_mode(rater, settings, caplog, debug):
    """The finding: in development the 500 showed Django's debug page, settings included, to
    the rater who sent the request. Now it is the styled page with an error id; the traceback
    goes to the log under that id."""
    settings.DEBUG = debug
    client = Client(raise_request_exception=False)
    client.force_login(rater)
    with caplog.at_level("ERROR", logger="studio.errors"):
        response = client.get("/boom/")
    assert_styled_error_page(response, 500)
    html = response.content.decode()
    for leak in ("a bug", "RuntimeError", "SECRET_KEY", "settings", "DATABASES", "Request Method"):
        assert leak not in html, leak
    error_id = re.search(r'<code class="error-id">([0-9a-f]{12})</code>', html).group(1)
    [record] = [r for r in caplog.records if error_id in r.getMessage()]
    assert record.exc_info and "a bug" in str(record.exc_info[1])
    api = client.get("/api/boom/")
    assert api.status_code == 500 and api["Content-Type"] == "application/json"
    body = api.json()
    assert "error id" in body["detail"] and "a bug" not in body["detail"]


@pytest.mark.urls("tests.studio.error_urls")
def test_only_a_superuser_in_development_gets_the_technical_page(admin_user, settings):
    settings.DEBUG = True
    client = Client(raise_request_exception=False)
    admin_user.is_superuser = True
    admin_user.save(update_fields=["is_superuser"])
    client.force_login(admin_user)
    assert "a bug" in client.get("/boom/").content.decode()  # Django's debug page
    settings.DEBUG = False
    production = client.get("/boom/")
    assert_styled_error_page(production, 500)
    assert "a bug" not in production.content.decode()


@pytest.mark.urls("tests.studio.error_urls")
def test_the_test_client_still_learns_of_a_server_error(rater, settings):
    settings.DEBUG = True
    client = Client()
    client.force_login(rater)
    with pytest.raises(RuntimeError, match="a bug"):
        client.get("/boom/")

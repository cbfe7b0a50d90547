import pytest


@pytest.mark.parametrize("role", ["annotator", "auditor", "rater", "adjudicator", "admin_user"])
def test_each_role_reaches_its_home_page(client, request, role):
    user = request.getfixturevalue(role)
    client.force_login(user)
    page = client.get("/").content.decode()
    expected = "admin" if role == "admin_user" else role
    assert f'data-role="{expected}"' in page


def test_anonymous_user_is_sent_to_login(client, db):
    response = client.get("/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_every_page_sends_an_enforced_content_security_policy(client, db):
    response = client.get("/login/")
    assert "script-src 'self'" in response["Content-Security-Policy"]
    assert "Content-Security-Policy-Report-Only" not in response.headers


def test_openapi_schema_and_docs_are_served(client, admin_user):
    client.force_login(admin_user)
    assert client.get("/api/schema/").status_code == 200
    assert client.get("/api/docs/").status_code == 200

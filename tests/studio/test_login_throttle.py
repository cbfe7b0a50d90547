"""Login throttling: failed logins per user name and per client address lock logins out, with
a clear page, on the site's login and the admin's; a success clears only its own name's
failures from its own address; an admin unlocks. The defaults of the settings are what is
tested (10 failures, 15 minutes)."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.test import Client

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

LOGIN_PAGES = ["/login/", "/admin/login/"]


@pytest.fixture(autouse=True)
def throttled(settings):
    settings.AXES_ENABLED = True
    assert settings.AXES_FAILURE_LIMIT == 10  # the default, not a test value


def _login(client: Client, page: str, username: str, password: str, address="10.0.0.1"):
    return client.post(
        page, {"username": username, "password": password, "next": "/"}, REMOTE_ADDR=address
    )


def _logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


@pytest.mark.parametrize("page", LOGIN_PAGES)
def test_twenty_wrong_passwords_lock_the_right_one_out_with_a_clear_page(page, admin_user):
    client = Client()
    answers = [_login(client, page, admin_user.username, "wrong").status_code for _ in range(20)]
    assert answers[:9] == [200] * 9  # the login form again, with its error
    assert answers[9:] == [429] * 11  # the 10th failure locks

    refused = _login(client, page, admin_user.username, PASSWORD)
    assert refused.status_code == 429
    text = refused.content.decode()
    assert "Logging in is paused" in text
    assert "10 failed logins" in text and "15 minutes" in text
    assert "ask an admin to unlock it" in text
    assert not _logged_in(client)


def test_a_user_name_is_locked_from_every_address(annotator):
    for n in range(10):
        _login(Client(), "/login/", annotator.username, "wrong", address=f"10.0.1.{n}")
    client = Client()
    assert _login(client, "/login/", annotator.username, PASSWORD, "10.0.2.1").status_code == 429
    assert not _logged_in(client)


def test_an_address_is_locked_for_every_user_name(annotator, rater):
    for n in range(10):
        _login(Client(), "/login/", f"guess{n}", "wrong", address="10.0.3.1")
    locked = Client()
    assert _login(locked, "/login/", annotator.username, PASSWORD, "10.0.3.1").status_code == 429
    assert not _logged_in(locked)
    elsewhere = Client()  # the same user from another address is not affected
    assert _login(elsewhere, "/login/", annotator.username, PASSWORD, "10.0.3.2").status_code == 302
    assert _logged_in(elsewhere)


def test_a_successful_login_clears_the_failures(annotator):
    for _ in range(2):
        for _ in range(9):
            assert _login(Client(), "/login/", annotator.username, "typo").status_code == 200
        client = Client()
        assert _login(client, "/login/", annotator.username, PASSWORD).status_code == 302
    assert not AccessAttempt.objects.filter(failures_since_start__gt=0).exists()


def test_one_s_own_success_never_clears_the_guesses_at_someone_else(annotator, rater):
    """The finding replayed: from one address, 5 wrong passwords for a victim's name, then a
    correct login with one's own account, repeated. The failures against the victim keep
    counting: the 10th wrong guess locks the address and the victim's name, and from then on
    every login from that address is refused, one's own included."""
    attacker, victim = rater, annotator
    answers = []
    for _round in range(6):  # 30 wrong guesses if nothing stopped them
        for _ in range(5):
            answers.append(_login(Client(), "/login/", victim.username, "guess").status_code)
        own = Client()
        answers.append(_login(own, "/login/", attacker.username, PASSWORD).status_code)
    assert answers[:5] == [200] * 5 and answers[5] == 302  # round 1: 5 failures, own login ok
    assert answers[6:10] == [200] * 4 and answers[10] == 429  # the 10th failure locks
    assert set(answers[11:]) == {429}  # own login included: the address is locked
    # Every guess counted, none was cleared by the attacker's own logins.
    assert AccessAttempt.objects.filter(username=victim.username).get().failures_since_start == 30

    # The victim's name is locked from everywhere else too, the right password included ...
    client = Client()
    assert _login(client, "/login/", victim.username, PASSWORD, "10.9.9.9").status_code == 429
    assert not _logged_in(client)
    # ... and the attacker's own account still works from another address.
    elsewhere = Client()
    assert _login(elsewhere, "/login/", attacker.username, PASSWORD, "10.9.9.9").status_code == 302


def test_a_success_clears_only_its_own_name_from_its_own_address(annotator, rater):
    for _ in range(4):
        _login(Client(), "/login/", "someone-else", "wrong")
    for _ in range(3):
        _login(Client(), "/login/", annotator.username, "typo")
    _login(Client(), "/login/", annotator.username, "typo", address="10.0.9.9")
    assert _login(Client(), "/login/", annotator.username, PASSWORD).status_code == 302
    left = dict(AccessAttempt.objects.values_list("username", "failures_since_start"))
    assert left == {"someone-else": 4, annotator.username: 1}  # the one from 10.0.9.9 stays
    assert not AccessAttempt.objects.filter(
        username=annotator.username, ip_address="10.0.0.1"
    ).exists()


def test_an_honest_user_who_mistyped_gets_in_after_their_own_success(annotator):
    """Someone else failed from the same address (a shared office address): the honest user's
    typos still count there, and their success clears their own, so they keep getting in."""
    for _ in range(4):
        _login(Client(), "/login/", "colleague", "wrong")
    for _round in range(3):
        for _ in range(5):
            assert _login(Client(), "/login/", annotator.username, "typo").status_code == 200
        client = Client()
        assert _login(client, "/login/", annotator.username, PASSWORD).status_code == 302
        assert _logged_in(client)
    assert not AccessAttempt.objects.filter(username=annotator.username).exists()


def test_an_admin_unlocks_in_the_admin(annotator, admin_user):
    for _ in range(20):
        _login(Client(), "/login/", annotator.username, "wrong")
    assert _login(Client(), "/login/", annotator.username, PASSWORD).status_code == 429

    admin = Client()
    admin.force_login(admin_user)
    listing = admin.get("/admin/axes/accessattempt/")
    assert listing.status_code == 200 and annotator.username in listing.content.decode()
    ids = [str(pk) for pk in AccessAttempt.objects.values_list("pk", flat=True)]
    unlocked = admin.post(
        "/admin/axes/accessattempt/",
        {"action": "delete_selected", "_selected_action": ids, "post": "yes"},
    )
    assert unlocked.status_code == 302
    assert not AccessAttempt.objects.exists()

    client = Client()
    assert _login(client, "/login/", annotator.username, PASSWORD).status_code == 302
    assert _logged_in(client)


def test_the_lockout_page_is_not_shown_to_a_role_that_cannot_unlock(annotator):
    """Only admins reach the attempts (they carry user names and addresses)."""
    client = Client()
    client.force_login(annotator)
    assert client.get("/admin/axes/accessattempt/").status_code in (302, 403, 404)

"""Campaign pages in Chromium: instructions carrying script and onerror payloads stay text on the
participant's campaign page and on the admin's live progress page, also after it refreshed."""

from __future__ import annotations

import pytest

from review.campaigns.services import campaign_create, claim_next, submit
from tests.e2e.conftest import browser, open_as  # noqa: F401  (fixtures)
from tests.e2e.test_workspace_xss import ONERROR, SCRIPT, SVG, assert_inert

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_campaign_pages_render_payloads_inert(
    open_as,  # noqa: F811
    trivial_kind,
    manifest10,
    reviewers,
    auditor,
    admin_user,
):
    people = [*reviewers(2), auditor]
    campaign = campaign_create(
        name="xss_campaign", kind="trivial", manifest=manifest10, people=people,
        instructions=SCRIPT + ONERROR + SVG,
    )  # fmt: skip
    page = open_as(auditor).new_page()
    page.goto(f"/review/campaigns/{campaign.pk}/")
    assert SCRIPT in page.inner_text("body")
    assert_inert(page, open_as.dialogs)

    admin = open_as(admin_user).new_page()
    admin.goto(f"/admin/review/campaign/{campaign.pk}/progress/")
    assert ONERROR in admin.inner_text("body")
    assert "0 of 30 judgements" in admin.inner_text("#campaign-progress")
    first = claim_next(campaign=campaign, person=people[0])
    submit(assignment=first, person=people[0], part="", payload={"answer": "yes"})
    admin.wait_for_function(
        "() => document.querySelector('#campaign-progress').innerText.includes('1 of 30')",
        timeout=15_000,
    )  # the live page refreshed itself
    assert_inert(admin, open_as.dialogs)
    for url in ("/admin/review/campaign/", "/admin/review/exclusion/", "/admin/review/assignment/"):
        admin.goto(url)
        assert_inert(admin, open_as.dialogs)

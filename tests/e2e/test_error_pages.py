"""The error pages in Chromium under the enforced CSP: styled by our stylesheet, nothing refused,
and the favicon loads."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("debug", [False, True], ids=["production", "development"])
def test_the_404_page_is_styled_and_breaks_no_policy(open_as, annotator, settings, debug):
    settings.DEBUG = debug
    page = open_as(annotator).new_page()
    problems, icons = [], []
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    page.on("response", lambda r: icons.append(r.status) if "favicon" in r.url else None)
    response = page.goto("/no-such-page/")
    assert response.status == 404
    page.wait_for_load_state("networkidle")
    card = page.locator(".error-page")
    assert card.get_attribute("data-status") == "404"
    # studio.css applied: the card is white on the grey page and the top bar is dark.
    assert card.evaluate("el => getComputedStyle(el).backgroundColor") == "rgb(255, 255, 255)"
    assert (
        page.evaluate("getComputedStyle(document.querySelector('.topbar')).backgroundColor")
        == "rgb(17, 24, 39)"
    )
    assert [p for p in problems if "404" not in p] == []  # the page's own status is logged
    assert icons and all(status == 200 for status in icons)

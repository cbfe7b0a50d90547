"""The QA report in Chromium at 1440x900: its four charts drawn, the page no wider than its
window, and a model name carrying an onerror payload inert everywhere it is shown (the tables,
the chart legends, the chart downloads); a run without it has its charts inline, with the
values of every point on hover. Screenshots of the page and of each chart are written
to the test's temporary folder for a person to look at."""

from __future__ import annotations

import pytest

from tests.e2e.test_workspace_xss import ONERROR, assert_inert
from tests.scoring import qa_report_world as world
from tests.scoring.conftest import start_stand_in, stop_stand_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def stand_in():
    server = start_stand_in()
    yield server
    stop_stand_in(server)


def test_the_report_page_and_its_charts_in_chromium(
    open_as, admin_user, make_video, stand_in, tmp_path
):
    from scoring.endpoints import endpoint_create
    from scoring.packages import package_resolve, packages_sync_builtin

    packages_sync_builtin()

    def make_endpoint(name, model):
        return endpoint_create(name=name, base_url=stand_in.base_url, model=model,
                               json_schema=True, max_attempts=1)  # fmt: skip

    models = {"a": f"stand-in-vision-a{ONERROR}", "b": "stand-in-vision-b"}
    built = world.build(make_video=make_video, admin_user=admin_user, make_endpoint=make_endpoint,
                        packages=package_resolve, stand_in=stand_in, models=models)  # fmt: skip
    a, b = (built["runs"][k].name for k in "ab")
    page = open_as(admin_user).new_page()
    page.set_viewport_size({"width": 1440, "height": 900})
    dialogs = open_as.dialogs

    # From the QA run's page to its report, then both runs side by side.
    page.goto(f"/runs/{built['runs']['a'].pk}/")
    page.click("[data-role=qa-run-report]")
    page.wait_for_load_state("networkidle")
    assert page.locator("figure.chart").count() == 3  # one run: no pair chart
    assert_inert(page, dialogs)
    page.goto(f"/runs/qa/report/?runs={a},{b}")
    page.wait_for_load_state("networkidle")
    assert_inert(page, dialogs)
    assert ONERROR in page.inner_text("[data-role=qa-report-runs]")
    figures = page.locator("figure.chart")
    assert figures.count() == 4
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], width
    page.screenshot(path=str(tmp_path / "qareport-page-top.png"))
    page.screenshot(path=str(tmp_path / "qareport-page.png"), full_page=True)
    for i in range(figures.count()):
        figure = figures.nth(i)
        name = figure.get_attribute("data-chart")
        # A legend holding the payload's text makes the page show the chart as an image (where
        # nothing runs) instead of inline; the pairs chart names runs only and stays inline.
        assert figure.locator("img").count() == (0 if name == "pairs" else 1), name
        box = figure.locator(".chart-svg svg, img").first.bounding_box()
        assert box and box["width"] > 300 and box["height"] > 100, name
        figure.screenshot(path=str(tmp_path / f"qareport-chart-{name}.png"))
    # Run B alone: its charts inline, every drawn point naming its values on hover.
    page.goto(f"/runs/qa/report/?runs={b}")
    page.wait_for_load_state("networkidle")
    assert_inert(page, dialogs)
    inline = page.locator("figure.chart .chart-svg svg")
    assert inline.count() == 3
    for i in range(3):
        box = inline.nth(i).bounding_box()
        assert box and box["width"] > 300 and box["height"] > 100
        assert inline.nth(i).locator("title").count() > 0
    page.screenshot(path=str(tmp_path / "qareport-single-run.png"), full_page=True)
    # The chart downloads on their own, and the chooser.
    for url in (f"/runs/qa/report/charts/structure.svg?runs={a},{b}", "/runs/qa/report/"):
        page.goto(url)
        assert_inert(page, dialogs)
    page.screenshot(path=str(tmp_path / "qareport-chooser.png"))

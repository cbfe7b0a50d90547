"""Study and leaderboard pages and their charts with script and onerror payloads in a model
name, a prediction and a contrast name: everything renders inert in Chromium (under the
enforced CSP; no payload element enters the DOM), and the charts are visible at 1440x900
(screenshots kept under /tmp/issue-15-shots/ for a person to look at)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.test_workspace_xss import ONERROR, SCRIPT, SVG, assert_inert
from tests.scoring.conftest import start_stand_in, stop_stand_in
from tests.scoring.studies import study_release  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
SHOTS = Path("/tmp/issue-15-shots")


@pytest.fixture
def stand_in():
    server = start_stand_in()
    yield server
    stop_stand_in(server)


def _study(release, stand_in):
    from scoring.endpoints import endpoint_create
    from scoring.models import StudyRun
    from scoring.packages import package_resolve, packages_sync_builtin
    from scoring.runs import run_drive
    from scoring.studies import study_advance, study_create, study_progress

    packages_sync_builtin()
    bad = endpoint_create(
        name="xss-model", base_url=stand_in.base_url, model=f"stand-in-vision{ONERROR}",
        json_schema=True,
    )  # fmt: skip
    other = endpoint_create(
        name="other-model", base_url=stand_in.base_url, model="stand-in-vision-b", json_schema=True
    )
    judge = endpoint_create(
        name="judge", base_url=stand_in.base_url, model="stand-in-judge", json_schema=True
    )
    payload = json.dumps({"local_intent": SCRIPT, "procedural_intent": "x", "next_step": SVG})
    stand_in.rules({"model": bad.model, "times": -1, "action": {"content": payload}})
    study = study_create(
        name="xss-study",
        template="custom",
        release=release,
        conditions=["scene_only", "prompt_only"],
        contrasts=[{"name": f"prior {SCRIPT}{ONERROR}", "a": "scene_only", "b": "prompt_only"}],
        endpoints=[bad, other],
        package=package_resolve("frames-prediction"),
        judge_endpoint=judge,
        judge_package=package_resolve("reference-judge"),
    )
    for _ in range(4):
        study_advance(study=study)
        for sr in StudyRun.objects.filter(study=study, run__status="running"):
            run_drive(run_id=sr.run_id)
        if study_progress(study)["stage"] == "complete":
            break
    assert study_progress(study)["stage"] == "complete"
    return study


def test_report_pages_and_charts_stay_inert_and_show_their_charts(
    open_as,
    admin_user,
    study_release,  # noqa: F811 (the fixture imported above)
    stand_in,
):
    from scoring.models import RunItem

    study = _study(study_release, stand_in)
    assert RunItem.objects.filter(prediction__local_intent=SCRIPT).exists()
    context = open_as(admin_user)
    page = context.new_page()
    page.set_viewport_size({"width": 1440, "height": 900})
    dialogs = open_as.dialogs
    SHOTS.mkdir(parents=True, exist_ok=True)
    pages = [
        ("/studies/", "xss-study", None),
        (f"/studies/{study.pk}/", ONERROR, "study"),
        (f"/studies/{study.pk}/report/", SCRIPT, "study-report"),
        ("/leaderboard/?release=sr&condition=prompt_only", ONERROR, "leaderboard"),
        (f"/studies/{study.pk}/charts/forest.svg", None, None),
        ("/leaderboard/charts/scenes.svg?release=sr&condition=prompt_only", None, None),
    ]
    for url, shown, shot in pages:
        page.goto(url)
        if shown is not None:
            assert shown in page.inner_text("body"), url
        assert_inert(page, dialogs)
        if shot:
            page.wait_for_load_state("networkidle")
            for img in page.locator("figure.chart img").all():
                img.scroll_into_view_if_needed()
                assert img.evaluate("i => i.complete && i.naturalWidth > 100"), (url, img)
            # Charts drawn into the page (values on hover) hold nothing active: no script, no
            # handler attribute, no foreign object, and the payload text stays text.
            for svg in page.locator("figure.chart .chart-svg svg").all():
                svg.scroll_into_view_if_needed()
                assert svg.evaluate("s => s.getBoundingClientRect().width > 100"), url
                assert svg.evaluate(
                    """s => !s.querySelector('script, foreignObject')
                        && ![...s.querySelectorAll('*')]
                            .some(e => [...e.attributes].some(a => a.name.startsWith('on')))"""
                ), url
            if "report" in url or "leaderboard" in url:
                assert page.locator("figure.chart").count() >= 1, url
            page.screenshot(path=SHOTS / f"{shot}-1440x900.png")
            page.screenshot(path=SHOTS / f"{shot}-full.png", full_page=True)
    # The run page of the model whose name and prediction carry the payloads stays inert too.
    run = RunItem.objects.filter(prediction__local_intent=SCRIPT).first().run
    page.goto(f"/runs/{run.pk}/")
    assert SCRIPT in page.inner_text("body")
    assert_inert(page, dialogs)

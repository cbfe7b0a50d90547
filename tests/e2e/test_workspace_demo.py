"""The workspace on the demo data set (`manage.py seed_demo`): the demo annotator logs in through
the login form, finds both videos with their progress, and works on the VFR one."""

from __future__ import annotations

import pytest

from annotation.models import MicroStep
from tests.e2e.conftest import shown_frame_number, wait_idle

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_demo_annotator_works_on_the_demo_videos(browser, live_server):
    from annotation.demo import seed_demo

    password, _, _ = seed_demo(password="demo-password-for-the-browser-test")
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1400, "height": 900})
    dialogs = []
    context.on("page", lambda p: p.on("dialog", lambda d: (dialogs.append(d), d.dismiss())))
    page = context.new_page()
    page.goto("/login/")
    page.fill("[name=username]", "demo-annotator")
    page.fill("[name=password]", password)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/")
    page.goto("/annotate/")
    rows = page.locator("table.video-list tbody tr")
    assert rows.count() == 2
    vfr = MicroStep.objects.filter(video__is_vfr=True).select_related("video").first().video
    row = page.locator(f"tr[data-video='{vfr.pk}']")
    active = MicroStep.objects.filter(video=vfr, status="active").order_by("start_us")
    assert row.locator("[data-col=steps]").inner_text() == str(active.count())
    row.locator("a").click()
    page.wait_for_selector("#workspace[data-ready=true]", timeout=20_000)
    wait_idle(page)
    assert page.locator(".tl-step").count() == active.count()
    times = vfr.frame_times_us().tolist()
    for step in active[:3]:
        assert page.input_value("[name=local_intent]") == step.local_intent
        assert int(page.get_attribute("#workspace", "data-frame")) == times.index(step.start_us)
        assert shown_frame_number(page) == times.index(step.start_us)
        page.keyboard.press("ArrowDown")
        wait_idle(page)
    page.keyboard.press("ArrowUp")
    wait_idle(page)
    page.fill("[name=next_step]", "Carry the mug to the table")
    page.wait_for_selector("[data-role=save-state][data-state=saved]", timeout=10_000)
    assert MicroStep.objects.get(pk=active[2].pk).next_step == "Carry the mug to the table"
    assert not dialogs
    context.close()

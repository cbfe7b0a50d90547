"""Every staff and review page of the demo, as each demo role sees it in Chromium, reads in
words: no raw code of the vocabulary where its label belongs, no microsecond count, no
timestamp with microseconds, no UUID (tests/e2e/plain_words.py says what counts), and no page
wider than its window. The blinded
item pages are opened the way a reviewer opens them (Start my next item); the Django admin,
which shows ids on purpose, is left out.

The crawl follows every link from each role's home page (at most two pages of one route), and
then checks that it reached every page route of the project: a new page joins this test, or is
named below with the reason it is not a page a person reads."""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlparse

import pytest
from django.urls import Resolver404, resolve

from tests.e2e.plain_words import problems, visible_text
from tests.scoring.conftest import start_stand_in, stop_stand_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# Routes that are not pages a person reads, each with why.
NOT_PAGES = {
    "healthz": "a health probe for machines",
    "favicon.ico": "an icon",
    "login/": "before any role (its words are checked on the way in)",
    "logout/": "POST only",
    "api/": "the API and its schema speak in codes on purpose",
    "m/": "media files",
    "model-media/": "media for model servers",
    "/draft$": "JSON of an item page",
    "/state$": "JSON of an item page",
    "/submit$": "JSON of an item page",
    "/renew$": "JSON of an item page",
    "progress/": "a fragment the run and study pages poll (checked inside them)",
    "/clips": "JSON the adjudication pages poll for their clips",
    "export.jsonl": "a download",
    "report.<slug:fmt>": "a download",
    "charts/": "a chart download (the pages draw the same chart inline)",
    "qa-audits/<int:audit_id>/campaign/": "POST only (a refused campaign shows the audit page)",
    "runs/<int:run_id>/judge/": "POST only",
    "runs/<int:run_id>/<slug:action>/": "POST only",
    "studies/<int:study_id>/run/": "POST only",
    "baselines/<int:campaign_id>/judge/": "POST only",
    "judge-validation/<int:campaign_id>/judge/": "POST only",
}
# Whole routes that are not pages a person reads (a marker above would also match the pages
# under them).
NOT_PAGE_ROUTES = {
    "runs/qa/": "where the Runs page's QA start form posts (a refused start shows that form again)",
}
SKIP_LINK = re.compile(
    r"/admin/|/api/|logout|\.jsonl|\.csv|\.json|/charts/|format=|/m/|model-media"
)
ROLES = ("admin", "adjudicator", "auditor", "rater", "annotator")
CAMPAIGN_PAGE = "review/campaigns/<int:campaign_id>/"


@pytest.fixture
def stand_in():
    server = start_stand_in()
    yield server
    stop_stand_in(server)


def _demo(settings, stand_in):
    """The demo, with the two typed prediction runs judged by the stand-in judge (no media
    needed), so the run pages, the leaderboard and its charts show judged rows."""
    from annotation.demo import seed_demo
    from scoring.judges import judge_start
    from scoring.models import Endpoint, Run
    from scoring.packages import package_resolve
    from scoring.runs import run_drive

    settings.STAND_IN_PROVIDER_PORT = int(stand_in.url.rsplit(":", 1)[1])
    seed_demo(password="demo-password-for-the-words-test")
    judge = Endpoint.objects.get(name="stand-in-judge")
    for name in ("demo-typed-closed-predictions", "demo-typed-open-predictions"):
        run = judge_start(
            name=f"{name}-reference",
            kind="reference",
            endpoint=judge,
            package=package_resolve("reference-judge"),
            runs=[Run.objects.get(name=name)],
        )
        run_drive(run_id=run.pk)
    baseline_judge = Run.objects.get(name="demo-baseline-judge")
    run_drive(run_id=baseline_judge.pk)


def _route(path: str) -> str | None:
    try:
        return str(resolve(urlparse(path).path).route)
    except Resolver404:
        return None


def _shape(path: str) -> str:
    parsed = urlparse(path)
    return f"{_route(path)}?{','.join(sorted(k.split('=')[0] for k in parsed.query.split('&')))}"


def _read(page, where: str, findings: dict) -> None:
    text, leaves = visible_text(page)
    found = problems(text, leaves)
    # A page fits its window's width: a long hash or code wraps instead of widening the page.
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    if width[0] > width[1]:
        found = [*found, f"{width[0]} px wide in a {width[1]} px window"]
    if found:
        findings[where] = found


def _open_item(page, base: str, findings: dict, role: str) -> str | None:
    """Start (or continue) my next item of the campaign page open in ``page``."""
    button = page.locator("main form button[type=submit]")
    if not button.count():
        return None
    button.first.click()
    page.wait_for_url(re.compile(r".*/i/[A-Za-z0-9_-]+/$"), timeout=15_000)
    page.wait_for_load_state("networkidle", timeout=15_000)
    page.wait_for_timeout(500)
    _read(page, f"{role} {page.url}", findings)
    return _route(page.url.replace(base, ""))


def _crawl(context, base: str, role: str, findings: dict, visited: set) -> None:
    page = context.new_page()
    queue, seen, shapes = ["/"], set(), {}
    if role == "annotator":
        from annotation.models import MicroStep

        queue.append(f"/annotate/steps/{MicroStep.objects.order_by('pk').first().pk}/history/")
    while queue:
        path = queue.pop(0)
        shape = _shape(path)
        # Two pages of a route say what it shows; every campaign, though, for its item page.
        limit = 99 if _route(path) == CAMPAIGN_PAGE else 2
        if path in seen or shapes.get(shape, 0) >= limit:
            continue
        seen.add(path)
        shapes[shape] = shapes.get(shape, 0) + 1
        workspace = "/annotate/videos/" in path
        page.goto(path, wait_until="load" if workspace else "networkidle", timeout=30_000)
        if workspace:
            page.wait_for_selector("#workspace[data-ready=true]", timeout=20_000)
        visited.add(_route(path))
        _read(page, f"{role} {path}", findings)
        hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.getAttribute('href'))")
        if _route(path) == CAMPAIGN_PAGE:
            visited.add(_open_item(page, base, findings, role))
        for href in hrefs:
            url = urlparse(urljoin(base + path, href))
            if url.netloc != urlparse(base).netloc:
                continue
            link = url.path + (f"?{url.query}" if url.query else "")
            if not SKIP_LINK.search(link) and link not in seen and _route(link):
                queue.append(link)
    page.close()


def _page_routes() -> set[str]:
    from tests.studio.test_role_crawl import _routes

    routes = set()
    for route in _routes():
        if route in NOT_PAGE_ROUTES or any(marker in route for marker in NOT_PAGES):
            continue
        if route != "":
            routes.add(route)
    return routes | {""}


def test_every_staff_and_review_page_reads_in_words(
    browser, live_server, open_as, settings, stand_in
):
    from django.contrib.auth import get_user_model

    _demo(settings, stand_in)
    findings: dict[str, list[str]] = {}
    visited: set = set()
    for role in ROLES:
        user = get_user_model().objects.get(username=f"demo-{role}")
        _crawl(open_as(user), live_server.url, role, findings, visited)
    assert not findings, "\n".join(f"{where}: {found}" for where, found in findings.items())
    missing = _page_routes() - visited
    assert not missing, f"pages no role reached (link them, or name them in NOT_PAGES): {missing}"
    # The blinded item page of every campaign kind of the demo was read.
    items = {r.split("/")[0] for r in visited if r and "/i/(?P<token>" in r}
    assert items == {"audit", "baseline", "boundary", "judgeval", "qa"}, items


def test_moments_show_in_the_browsers_time_zone(browser, live_server, make_video, annotator):
    """The first page a browser opens reports its zone (static/js/time-zone.js) and redraws
    its moments in it; every later page is drawn in that zone by the server."""
    from zoneinfo import ZoneInfo

    from django.test import Client

    from annotation.models import VideoAssignment
    from annotation.services import step_create

    video = make_video(title="zone.mp4")
    VideoAssignment.objects.create(video=video, annotator=annotator)
    step = step_create(video=video, author=annotator, start_us=0, cutoff_us=1_000_000,
                       outcome_us=1_000_000, end_us=2_000_000)  # fmt: skip
    local = step.revisions.get().created_at.astimezone(ZoneInfo("Asia/Tokyo"))
    expected = f"{local:%Y-%m-%d %H:%M:%S}"
    client = Client()
    client.force_login(annotator)
    context = browser.new_context(base_url=live_server.url, timezone_id="Asia/Tokyo")
    host = live_server.url.split("://", 1)[1].split(":")[0]
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                          "domain": host, "path": "/"}])  # fmt: skip
    page = context.new_page()
    page.goto(f"/annotate/steps/{step.pk}/history/")
    page.wait_for_function(
        f"() => document.querySelector('time').textContent.startsWith('{expected}')"
    )
    assert {c["name"]: c["value"] for c in context.cookies()}["tz"] == "Asia/Tokyo"
    page.reload()
    shown = page.evaluate("() => document.querySelector('time').textContent")
    assert shown == f"{expected} JST"  # drawn by the server in the browser's zone
    context.close()

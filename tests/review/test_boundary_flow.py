"""The boundary audit end to end on a real video: claiming, the blind item page and its state,
submission, the crawl as a boundary reviewer, role checks of every page, adjudication, the
report, and JSON Lines import/export."""

from __future__ import annotations

import json
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from review.audit.decisions import adjudication_queue
from review.audit.imports import ImportRefused, decisions_export, decisions_load
from review.boundary.kind import SCHEME
from review.boundary.media import window_media
from review.boundary.reporting import campaign_report, four_way_valid_set
from review.boundary.windows import WINDOW_NAMES, window_order
from review.campaigns.models import Assignment, Exposure
from tests.conftest import _user
from tests.review.audit_world import render_pending
from tests.review.boundary_world import build_boundary_world, lines_for
from tests.review.test_audit_blinding import Crawl, client_for

pytestmark = pytest.mark.django_db

OTHERS_COMMENT = "apricot-comment-of-another-reviewer"


@pytest.fixture
def reviewers(auditor, django_user_model):
    return [
        auditor,
        _user(django_user_model, "bea", "auditor"),
        _user(django_user_model, "cyd", "auditor"),
    ]


@pytest.fixture
def world(tmp_path, admin_user, annotator, reviewers, audit_source):
    return build_boundary_world(
        tmp_path=tmp_path,
        admin=admin_user,
        annotator=annotator,
        reviewers=reviewers,
        source=audit_source,
    )


def _claim(crawl: Crawl, world) -> str:
    crawl.get("/")
    page = reverse("campaigns:next", args=[world.campaign.pk])
    crawl.get(page)
    item_url = crawl.client.post(page)["Location"]
    assert re.fullmatch(r"/boundary/i/[A-Za-z0-9_-]{43}/", item_url), item_url
    crawl.get(item_url)
    return item_url.split("/")[3]


def _rule_item(crawl: Crawl, token: str, *, comment="", label="valid") -> dict:
    crawl.get(reverse("boundary:item-state", args=[token]))
    render_pending()
    _, text = crawl.get(reverse("boundary:item-state", args=[token]))
    state = json.loads(text)
    ruled = [w["name"] for w in state["windows"] if w["available"]]
    payload = {"windows": {w: {"label": label, "comment": comment} for w in ruled}}
    crawl.post_json(reverse("boundary:item-draft", args=[token]), {"payload": payload}, 200)
    after = crawl.post_json(
        reverse("boundary:item-submit", args=[token]), {"payload": payload}, 201
    )
    assert after["phase"] == "done"
    crawl.get(reverse("review:assignment", args=[token]))
    crawl.fetch_media()
    return state


def test_the_item_page_shows_the_windows_in_the_reviewers_order_and_nothing_else(world, reviewers):
    crawl = Crawl(client_for(reviewers[0]))
    token = _claim(crawl, world)
    state = _rule_item(crawl, token, comment=OTHERS_COMMENT)
    assignment = Assignment.objects.get(token=token)
    sample = assignment.item.sample
    names = [w["name"] for w in state["windows"]]
    assert names == window_order(reviewers[0].pk, sample.sample_id, world.campaign.seed)
    assert [w["position"] for w in state["windows"]] == [1, 2, 3, 4]
    ready = [w for w in state["windows"] if w["available"]]
    assert all(w["clip"]["status"] == "ready" for w in ready)
    assert set(state) == {
        "phase",
        "campaign_open",
        "lease_held",
        "instructions",
        "step",
        "windows",
        "draft",
        "answers",
        "progress",  # the page's "item n of N" (review.campaigns.selectors.item_progress)
    }
    assert set(state["progress"]) == {"position", "of", "seconds", "done"}
    assert set(state["step"]) == {"local_intent", "next_step"}
    # Each clip is the condition's own window (media.windows), rendered for this user.
    from media.models import RenderedMedia

    media = RenderedMedia.objects.filter(
        pk__in=[
            int(g.split(":")[1])
            for e in Exposure.objects.filter(assignment=assignment)
            for g in e.grants
        ]
    )
    step = sample.release_step
    by_window = window_media(step)
    assert {m.pk for m in media} == {m.pk for m in by_window.values() if m is not None}
    times = world.video.frame_times_us()
    official = by_window["official"].spec["frames"]
    assert times[official[0]] == step.start_us and times[official[-1]] < step.cutoff_us
    assert times[official[-1] + 1] >= step.cutoff_us
    outcome = by_window["outcome_visible"].spec["frames"]
    assert times[outcome[-1]] == step.outcome_us
    early = by_window["early"].spec["frames"]
    assert times[early[-1]] < step.cutoff_us - 500_000
    exposure = Exposure.objects.filter(assignment=assignment).first()
    assert exposure.fields == ["local_intent", "next_step", "windows"]
    assert len(crawl.media) >= 3

    # A crawl as each other reviewer finds nothing they must not see.
    forbidden = [
        *world.secrets,
        OTHERS_COMMENT,
        reviewers[0].username,
        "prediction",
        "score",
        "judge",
        str(sample.sample_id),
    ]
    for reviewer in reviewers[1:]:
        other = Crawl(client_for(reviewer))
        _rule_item(other, _claim(other, world))
        other.assert_none_of(forbidden)
        assert other.client.get(reverse("boundary:item-state", args=[token])).status_code == 404
    crawl.assert_none_of([w for w in forbidden if w not in (OTHERS_COMMENT, reviewers[0].username)])


def test_the_last_step_has_three_windows(world, reviewers):
    last = world.steps[-1]
    item = world.campaign.items.get(sample__sample_id=last.uid)
    assignment = Assignment.objects.create(
        campaign=world.campaign,
        item=item,
        person=reviewers[0],
        token="t" * 43,
        state="leased",
        lease_expires_at="2999-01-01T00:00:00Z",
    )
    client = client_for(reviewers[0])
    state = client.get(reverse("boundary:item-state", args=[assignment.token])).json()
    gone = [w for w in state["windows"] if not w["available"]]
    assert [w["name"] for w in gone] == ["next_visible"] and gone[0]["clip"]["url"] is None
    four = {"windows": {w: {"label": "valid"} for w in WINDOW_NAMES}}
    response = client.post(
        reverse("boundary:item-submit", args=[assignment.token]),
        json.dumps({"payload": four}),
        content_type="application/json",
    )
    assert response.status_code == 400 and "next_visible" in response.json()
    assert not assignment.submissions.exists()
    # A draft keeps what was typed, as typed, and comes back with the state.
    draft = {"windows": {"early": {"label": "invalid", "comment": "  half a thought"}}}
    saved = client.put(
        reverse("boundary:item-draft", args=[assignment.token]),
        json.dumps({"payload": draft}),
        content_type="application/json",
    )
    assert saved.status_code == 200
    again = client.get(reverse("boundary:item-state", args=[assignment.token])).json()
    assert again["draft"] == draft and again["answers"] is None
    bad = client.put(
        reverse("boundary:item-draft", args=[assignment.token]),
        json.dumps({"payload": {"windows": {"sideways": {}}}}),
        content_type="application/json",
    )
    assert bad.status_code == 400
    assert (
        client.get(reverse("boundary:item-state", args=[assignment.token])).json()["draft"] == draft
    )


def test_roles_are_checked_on_every_boundary_page(
    world, reviewers, rater, adjudicator, annotator, admin_user
):
    owner = client_for(reviewers[0])
    item_url = owner.post(reverse("campaigns:next", args=[world.campaign.pk]))["Location"]
    token = item_url.split("/")[3]
    for user in (reviewers[1], rater, adjudicator, annotator, admin_user):
        client = client_for(user)
        for url in (item_url, reverse("boundary:item-state", args=[token])):
            assert client.get(url).status_code == 404, (user.username, url)
    # An audit page does not open a boundary token, nor the other way round.
    assert owner.get(reverse("audit:item", args=[token])).status_code == 404
    assert owner.get(reverse("audit:item-state", args=[token])).status_code == 404
    item = world.campaign.items.first()
    staff = [
        reverse("boundary:queue"),
        reverse("boundary:adjudicate", args=[world.campaign.pk, item.pk]),
        reverse("boundary:reports"),
        reverse("boundary:report", args=[world.campaign.pk]),
    ]
    for user in (reviewers[0], rater, annotator):
        for url in staff:
            assert client_for(user).get(url).status_code == 404, (user.username, url)
    adj = client_for(adjudicator)
    assert adj.get(staff[0]).status_code == 200 and adj.get(staff[1]).status_code == 200
    assert adj.get(staff[3]).status_code == 404
    boss = client_for(admin_user)
    for url in staff:
        assert boss.get(url).status_code == 200, url
    body = boss.get(staff[3] + "?format=json").json()
    assert body["campaign"] == "boundary-check" and body["sets"]["audited"] == 4
    assert boss.get(staff[3] + "?format=csv").content.startswith(b"section,")
    # The audit campaign of the same release is not a boundary campaign.
    audit = reverse("boundary:report", args=[world.audit_campaign.pk])
    assert boss.get(audit).status_code == 404


def test_resolution_adjudication_report_and_the_four_way_set(world, reviewers, adjudicator):
    s0, s1, s2, s3 = world.steps
    lines = [
        *lines_for(world, s0, reviewers, {w: ["valid", "valid", "invalid"] for w in WINDOW_NAMES}),
        *lines_for(
            world,
            s1,
            reviewers,
            {
                "early": ["invalid", "invalid", "valid"],
                "official": ["valid"] * 3,
                "outcome_visible": ["valid"] * 3,
                "next_visible": ["valid"] * 3,
            },
        ),
        *lines_for(
            world,
            s2,
            reviewers,
            {
                "early": ["valid"] * 3,
                "official": ["valid"] * 3,
                "outcome_visible": ["valid"] * 3,
                "next_visible": ["valid", "invalid", "uncertain"],
            },
            comment="note",
        ),
        *lines_for(
            world,
            s3,
            reviewers,
            {"early": ["valid"] * 3, "official": ["valid"] * 3, "outcome_visible": ["valid"] * 3},
        ),
    ]
    counts = decisions_load(campaign=world.campaign, lines=lines, scheme=SCHEME)
    assert counts == {"decisions": len(lines), "submissions": 12, "adjudications": 0}
    assert Assignment.objects.filter(campaign=world.campaign, state="done").count() == 12
    item2 = world.campaign.items.get(sample__sample_id=s2.uid)
    assert dict(adjudication_queue(world.campaign, SCHEME)) == {item2.pk: ["next_visible"]}
    before = four_way_valid_set(world.campaign)
    assert before["valid"] == [str(s0.uid)] and before["sets"]["official_valid"] == 4

    client = client_for(adjudicator)
    page = client.get(reverse("boundary:adjudicate", args=[world.campaign.pk, item2.pk]))
    text = page.content.decode()
    assert "Reviewer A" in text and "Reviewer C" in text and "note" in text
    for reviewer in reviewers:
        assert reviewer.username not in text.replace(adjudicator.username, "")
    refused = client.post(
        reverse("boundary:adjudicate", args=[world.campaign.pk, item2.pk]),
        {"label-early": "invalid"},
    )
    assert refused.status_code == 200 and b"does not wait" in refused.content
    done = client.post(
        reverse("boundary:adjudicate", args=[world.campaign.pk, item2.pk]),
        {"label-next_visible": "valid"},
    )
    assert done.status_code == 302
    after = four_way_valid_set(world.campaign)
    assert after["valid"] == sorted([str(s0.uid), str(s2.uid)])
    report = campaign_report(world.campaign)
    assert report["sets"] == {
        "audited": 4,
        "official_valid": 4,
        "four_way_valid": 2,
        "four_way_valid_complete_predictions": None,
    }
    windows = {w["window"]: w for w in report["windows"]}
    assert windows["next_visible"]["unavailable"] == 1
    assert windows["next_visible"]["adjudicated"] == 1
    assert sum(b["audited"] for b in report["duration_bins"]) == 4

    # Export, then import the export unchanged: the same decisions, nothing else.
    exported = list(decisions_export(campaign=world.campaign, scheme=SCHEME))
    assert {ln["kind"] for ln in exported} == {"decision", "adjudication"}
    assert all("window" in ln and "criterion" not in ln for ln in exported)
    adjudications = [ln for ln in exported if ln["kind"] == "adjudication"]
    assert [ln["window"] for ln in adjudications] == ["next_visible"]
    decisions_load(campaign=world.campaign, lines=exported, scheme=SCHEME)
    assert four_way_valid_set(world.campaign) == after


def test_a_bad_file_is_refused_whole_with_line_numbers(world, reviewers, tmp_path, annotator):
    s0 = world.steps[0]
    good = lines_for(world, s0, reviewers[:1], {"early": ["valid"]})[0]
    rows = [
        good,
        {**good, "window": "context"},
        {**good, "reviewer": "nobody"},
        {**good, "criterion": "C1"},
        {**good, "label": "maybe"},
        {**good, "window": "official", "error_types": ["other"]},
        {
            "kind": "adjudication",
            "adjudicator": reviewers[1].username,
            "step": str(s0.uid),
            "window": "early",
            "label": "valid",
        },
        good,
    ]
    path = tmp_path / "decisions.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\nnot json\n", encoding="utf-8")
    with pytest.raises(Exception) as refused:
        call_command("boundary_import_decisions", world.campaign.name, str(path))
    message = str(refused.value)
    for number in (2, 3, 4, 5, 6, 7, 8, 9):
        assert f"line {number}:" in message, (number, message)
    assert "line 1:" not in message
    assert not world.campaign.submissions.exists()
    with pytest.raises(ImportRefused):
        decisions_load(campaign=world.campaign, lines=rows[1:2], scheme=SCHEME)
    # A good file lands; the export command writes it back.
    path.write_text(json.dumps(good) + "\n", encoding="utf-8")
    call_command("boundary_import_decisions", world.campaign.name, str(path))
    out = tmp_path / "out.jsonl"
    call_command("boundary_export_decisions", world.campaign.name, "-o", str(out))
    assert [json.loads(x) for x in out.read_text().splitlines()] == [good]
    report = tmp_path / "report.json"
    call_command("boundary_report", world.campaign.name, "--format", "json", "-o", str(report))
    assert json.loads(report.read_text())["sets"]["audited"] == 4

"""Blinding of the rater page: a crawl as each rater of every page, API answer and media URL
they can reach, before and after submitting, finds no scene or event name, no video name or
SHA-256, no id, no reference label, no model output and nothing of another rater. And the role
checks of the rater and report pages."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from review.campaigns.models import Exposure
from tests.review.audit_world import render_pending
from tests.review.baseline.world import dims, judgeval_over
from tests.review.test_audit_blinding import Crawl, client_for

pytestmark = pytest.mark.django_db

OTHERS_ANSWER = "tangerine-answer-of-another-rater"


def _crawl_item(crawl: Crawl, world, *, answer="Lift the cup"):
    crawl.get("/")
    campaign_page = reverse("campaigns:next", args=[world.campaign.pk])
    crawl.get(campaign_page)
    item_url = crawl.client.post(campaign_page)["Location"]
    assert re.fullmatch(r"/baseline/i/[A-Za-z0-9_-]{43}/", item_url)
    token = item_url.split("/")[3]
    crawl.get(item_url)
    crawl.get(reverse("baseline:item-state", args=[token]))
    render_pending()
    _, text = crawl.get(reverse("baseline:item-state", args=[token]))
    state = json.loads(text)
    assert state["clip"]["status"] == "ready" and not state["submitted"]
    assert set(state) == {"submitted", "campaign_open", "lease_held", "instructions",
                          "dimensions", "confidence", "draft", "answer", "clip",
                          "progress"}  # fmt: skip
    assert set(state["progress"]) == {"position", "of", "seconds", "done"}
    crawl.fetch_media()
    after = crawl.post_json(
        reverse("baseline:item-submit", args=[token]),
        {"payload": dims(local=[answer], nxt=[answer + " next", "wash it"])},
        201,
    )
    assert after["submitted"] and after["answer"]["dimensions"]["local"]["answers"] == [answer]
    assert "seconds" not in after["answer"]
    crawl.get(reverse("baseline:item-state", args=[token]))
    crawl.get(item_url)
    crawl.get(reverse("review:assignment", args=[token]))
    crawl.get(campaign_page)
    crawl.fetch_media()
    return token


def test_a_crawl_as_each_rater_finds_nothing_they_must_not_see(world, raters):
    forbidden = [*world.secrets, "judgement", "prediction", "score", "reference"]
    first = Crawl(client_for(raters[0]))
    _crawl_item(first, world, answer=OTHERS_ANSWER)
    first.assert_none_of(forbidden)
    for rater in raters[1:]:
        crawl = Crawl(client_for(rater))
        _crawl_item(crawl, world)
        crawl.assert_none_of([*forbidden, OTHERS_ANSWER, raters[0].username])
    assert len(first.media) >= 1
    exposures = Exposure.objects.filter(person=raters[0])
    assert exposures.exists()
    assert all(e.fields == ["official_clip"] for e in exposures)


def test_nobody_else_reaches_an_assignment_and_reports_are_for_admins(
    world, raters, auditor, annotator, adjudicator, admin_user
):
    owner = client_for(raters[0])
    item_url = owner.post(reverse("campaigns:next", args=[world.campaign.pk]))["Location"]
    token = item_url.split("/")[3]
    urls = [item_url, reverse("baseline:item-state", args=[token])]
    for user in (raters[1], auditor, adjudicator, annotator, admin_user):
        client = client_for(user)
        for url in urls:
            assert client.get(url).status_code == 404, (user.username, url)
        response = client.post(
            reverse("baseline:item-submit", args=[token]), "{}", content_type="application/json"
        )
        assert response.status_code == 404
    # an audit token on the baseline pages is a 404 too (a kind's page serves its kind only)
    staff = [
        reverse("scoring:baseline-list"),
        reverse("scoring:baseline-report", args=[world.campaign.pk]),
    ]
    for user in (raters[0], auditor, annotator, adjudicator):
        client = client_for(user)
        for url in staff:
            assert client.get(url).status_code == 404, (user.username, url)
    boss = client_for(admin_user)
    assert boss.get(staff[0]).status_code == 200
    page = boss.get(staff[1] + "?similarity=lexical")
    assert page.status_code == 200 and b"not judged yet" in page.content
    data = json.loads(boss.get(staff[1] + "?similarity=lexical&format=json").content)
    assert data["campaign"] == world.campaign.name and data["judge"] is None
    assert Client().get(item_url).status_code == 302


def test_a_draft_survives_and_bad_input_writes_nothing(world, raters):
    client = client_for(raters[0])
    item_url = client.post(reverse("campaigns:next", args=[world.campaign.pk]))["Location"]
    token = item_url.split("/")[3]
    draft = {"dimensions": {"next": {"answerable": True, "answers": ["", "half typed"]}}}
    response = client.put(
        reverse("baseline:item-draft", args=[token]),
        json.dumps({"payload": draft}),
        content_type="application/json",
    )
    assert response.status_code == 200
    state = client.get(reverse("baseline:item-state", args=[token])).json()
    assert state["draft"]["dimensions"]["next"]["answers"] == ["", "half typed"]
    bad = client.post(
        reverse("baseline:item-submit", args=[token]),
        json.dumps({"payload": dims(nxt=())}),
        content_type="application/json",
    )
    assert bad.status_code == 400 and "next" in bad.json()
    from review.campaigns.models import Submission

    assert not Submission.objects.filter(campaign=world.campaign).exists()
    flagged = client.post(reverse("baseline:item-submit", args=[token]),
                          json.dumps({"payload": {"broken": True, "note": "frozen frame"}}),
                          content_type="application/json")  # fmt: skip
    assert flagged.status_code == 201 and flagged.json()["answer"]["broken"] is True


# --- across campaigns: one rater in a blind baseline and in judge validation over shared steps ---


def test_a_crawl_across_campaigns_never_shows_a_step_still_to_answer_blind(
    world, raters, admin_user, django_user_model
):
    """Bo rates in a judge-validation campaign (references shown) and answers a human baseline
    blind over the same steps. Both campaigns exist before the rule could exclude anything (the
    rating campaign first, when Bo had no blind work), so what holds is the claim and the page.
    Until Bo has answered every baseline item nothing Bo reaches holds a reference of a shared
    step; afterwards the rating items open."""
    from review.campaigns.models import Assignment, Exclusion
    from review.campaigns.services import campaign_create
    from review.models import ManifestSample
    from tests.conftest import _user

    bo = _user(django_user_model, "bo-rater", "rater")
    others = [_user(django_user_model, f"rater-{n}", "rater") for n in (2, 3)]
    rating = judgeval_over(world, [bo, *others], admin_user)
    baseline = campaign_create(
        name="baseline-bo", kind="human_baseline", manifest=world.manifest, people=[bo],
        per_item=1, seed=3, author=admin_user,
    )  # fmt: skip
    assert not Exclusion.objects.filter(campaign__in=[rating, baseline]).exists()
    shared = set(
        ManifestSample.objects.filter(manifest=rating.manifest).values_list("sample_id", flat=True)
    )
    steps = {s.uid: s for s in world.steps}
    assert len(shared) == 2 and shared <= set(steps)
    forbidden = [
        text
        for uid in shared
        for text in (steps[uid].local_intent, steps[uid].procedural_intent, steps[uid].next_step,
                     *steps[uid].plausible_next_steps)
    ]  # fmt: skip

    crawl = Crawl(client_for(bo))
    crawl.get("/")
    rating_page = reverse("campaigns:next", args=[rating.pk])
    crawl.get(rating_page)
    refused = crawl.client.post(rating_page)  # every rating item is a shared step: none is given
    assert refused["Location"] == rating_page
    _, text = crawl.get(rating_page)
    assert "Nothing is free for you right now" in text
    claim = crawl.post_json(reverse("review:campaign-claim", args=[rating.pk]), {}, 200)
    assert claim["token"] is None and claim["state"] == "waiting"

    baseline_page = reverse("campaigns:next", args=[baseline.pk])
    answered = set()
    for n in range(len(world.steps)):
        item_url = crawl.client.post(baseline_page)["Location"]
        token = item_url.split("/")[3]
        crawl.get(item_url)
        crawl.get(reverse("baseline:item-state", args=[token]))
        crawl.post_json(
            reverse("baseline:item-submit", args=[token]),
            {"payload": dims(local=[f"Bo's answer {n}"])},
            201,
        )
        crawl.get(reverse("review:assignment", args=[token]))
        answered.add(Assignment.objects.get(token=token).item.sample.sample_id)
        # the rating campaign gives a shared step only once Bo has answered it blind
        claim = crawl.post_json(reverse("review:campaign-claim", args=[rating.pk]), {}, 200)
        if claim["token"] is not None:
            held = Assignment.objects.get(token=claim["token"])
            assert held.item.sample.sample_id in answered
            crawl.post_json(reverse("review:assignment-release", args=[claim["token"]]), {}, 200)
    crawl.get("/")
    crawl.get(baseline_page)
    crawl.assert_none_of(forbidden)

    # Through with the baseline: the shared steps open for rating, references and all.
    opened = crawl.post_json(reverse("review:campaign-claim", args=[rating.pk]), {}, 200)
    assert opened["token"]
    state = crawl.get(reverse("judgeval:item-state", args=[opened["token"]]))[1]
    assert any(text in state for text in forbidden)
    # and a later baseline over these steps excludes Bo from them, saying why
    again = campaign_create(
        name="baseline-bo-again", kind="human_baseline", manifest=world.manifest, people=[bo],
        per_item=1, seed=4, author=admin_user,
    )  # fmt: skip
    reasons = list(Exclusion.objects.filter(campaign=again).values_list("reason", flat=True))
    assert len(reasons) == 1 and reasons[0].startswith("was shown this step's reference answers")

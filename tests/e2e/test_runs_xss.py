"""Model output is text, never markup: a prediction, a judge's justification, a raw response and
an endpoint's model name carrying script and onerror payloads render inert on every page that
shows them (Chromium, under the enforced CSP; no payload element may enter the DOM)."""

from __future__ import annotations

import json

import pytest

from tests.e2e.test_workspace_xss import ONERROR, SCRIPT, SVG, assert_inert
from tests.scoring.conftest import LABELS, S, start_stand_in, stop_stand_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def stand_in():
    server = start_stand_in()
    yield server
    stop_stand_in(server)


def _world(make_video, annotator, admin_user, stand_in):
    from annotation.releases import release_freeze
    from annotation.services import step_create
    from scoring.endpoints import endpoint_create
    from scoring.judges import judge_start
    from scoring.packages import package_resolve, packages_sync_builtin
    from scoring.runs import run_drive, run_predict

    video = make_video()
    local, why, nxt, plausible = LABELS[0]
    step_create(
        video=video,
        author=annotator,
        start_us=0,
        cutoff_us=2 * S,
        outcome_us=2 * S,
        end_us=3 * S,
        local_intent=local,
        procedural_intent=why,
        next_step=nxt,
        plausible_next_steps=plausible,
    )
    release = release_freeze(name="xss", author=admin_user)
    packages_sync_builtin()
    endpoint = endpoint_create(
        name="xss", base_url=stand_in.base_url, model=f"stand-in-vision{ONERROR}", json_schema=True
    )
    payload = {"local_intent": SCRIPT, "procedural_intent": ONERROR, "next_step": SVG}
    stand_in.rules({"model": endpoint.model, "action": {"content": payload}})
    run = run_predict(
        name="xss-run",
        endpoint=endpoint,
        condition="prompt_only",
        release=release,
        package=package_resolve("frames-prediction"),
    )
    run_drive(run_id=run.pk)
    reply = {
        "evaluations": [
            {
                "candidate_id": "C01",
                "local_intent_score": 10,
                "procedural_intent_score": 10,
                "next_plan_score": 0,
                "next_plan_match_type": "none",
                "brief_reason": SCRIPT + ONERROR,
            }
        ]
    }
    stand_in.rules({"action": {"content": json.dumps(reply)}})
    judge = judge_start(
        name="xss-judge",
        kind="reference",
        endpoint=endpoint,
        runs=[run],
        package=package_resolve("reference-judge"),
    )
    run_drive(run_id=judge.pk)
    return run, judge


def test_model_output_never_executes_on_any_page(
    open_as, make_video, annotator, admin_user, stand_in
):
    run, judge = _world(make_video, annotator, admin_user, stand_in)
    item = run.items.get()
    assert item.prediction["local_intent"] == SCRIPT
    unit = judge.items.get()
    judgement = judge.judgements.get()
    assert judgement.justification == SCRIPT + ONERROR
    page = open_as(admin_user).new_page()
    dialogs = open_as.dialogs
    pages = [
        ("/runs/", ONERROR),
        (f"/runs/{run.pk}/", SCRIPT),
        (f"/runs/{run.pk}/items/{item.pk}/", SVG),
        (f"/runs/{judge.pk}/", SCRIPT + ONERROR),
        (f"/runs/{judge.pk}/items/{unit.pk}/", SCRIPT),
        (f"/admin/scoring/runitem/{item.pk}/change/", SCRIPT),
        (f"/admin/scoring/judgement/{judgement.pk}/change/", SCRIPT),
        (f"/admin/scoring/endpoint/{run.endpoint_id}/change/", None),
        ("/admin/scoring/runitem/", None),
        ("/admin/scoring/judgement/", None),
    ]
    for url, shown in pages:
        page.goto(url)
        if shown is not None:
            assert shown in page.inner_text("body"), url
        assert_inert(page, dialogs)

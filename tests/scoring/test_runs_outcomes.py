"""Prediction runs against the stand-in provider (a real HTTP server): every item ends in exactly
one outcome, and nothing but ``ok`` carries a prediction."""

import pytest

from scoring.models import Outcome, RunItem
from scoring.runs import run_drive, run_predict
from scoring.runs.progress import run_progress

pytestmark = pytest.mark.django_db


def _predict(frozen_release, endpoint, packages, name="p1", condition="prompt_only", **kw):
    run = run_predict(
        name=name,
        endpoint=endpoint,
        package=packages("frames-prediction"),
        condition=condition,
        release=frozen_release,
        **kw,
    )
    run_drive(run_id=run.pk)
    run.refresh_from_db()
    return run


def test_a_clean_run_ends_ok_with_three_fields(frozen_release, make_endpoint, packages, stand_in):
    run = _predict(frozen_release, make_endpoint(), packages)
    items = list(run.items.all())
    assert [i.outcome for i in items] == ["ok"] * 3
    assert set(items[0].prediction) == {"local_intent", "procedural_intent", "next_step"}
    assert items[0].returned_model == "stand-in-vision+stand-in-build-1"
    assert run.status == "finished"
    assert run_progress(run)["requests"] == 3 == stand_in.stats()["requests"]


@pytest.mark.parametrize(
    ("action", "outcome", "detail"),
    [
        ({"status": 400, "code": "content_filter"}, "refusal", "content_filter"),
        ({"status": 400, "type": "content_policy_violation"}, "refusal", "content_policy"),
        ({"status": 400, "message": "The video file is invalid"}, "refusal", "media"),
        ({"finish_reason": "content_filter"}, "refusal", "content_filter"),
        ({"content": "I think the person is making tea."}, "parse_failure", "not JSON"),
        ({"finish_reason": "length"}, "parse_failure", "cut off"),
        ({"content": '{"local_intent": "x", "procedural_intent": "y"}'}, "parse_failure", "next"),
        (
            {"content": '{"local_intent": "x", "procedural_intent":"y", "next_step":"z", "w": 0}'},
            "parse_failure",
            "w",
        ),
        ({"status": 401}, "api_error", "401"),
        ({"status": 400, "message": "unknown parameter foo"}, "api_error", "400"),
    ],
)
def test_each_failure_ends_in_its_outcome_and_is_never_scored(
    frozen_release, make_endpoint, packages, stand_in, action, outcome, detail
):
    stand_in.rules({"times": -1, "action": action})
    run = _predict(frozen_release, make_endpoint(), packages)
    item = run.items.first()
    assert item.outcome == outcome
    assert item.prediction is None
    assert detail.lower() in item.detail.lower()
    assert item.raw_response  # kept for inspection
    assert run_progress(run)["outcomes"][outcome] == 3


def test_server_errors_are_retried_then_end_as_api_error(
    frozen_release, make_endpoint, packages, stand_in
):
    stand_in.rules({"times": -1, "action": {"status": 503}})
    run = _predict(frozen_release, make_endpoint(max_attempts=4), packages)
    item = run.items.first()
    assert item.outcome == "api_error" and item.prediction is None
    assert [a["status"] for a in item.calls] == [503] * 4
    assert "gave up after 4" in item.detail
    assert stand_in.stats()["requests"] == 12


def test_a_transient_error_then_success_is_ok(frozen_release, make_endpoint, packages, stand_in):
    stand_in.rules({"times": 2, "action": {"status": 500}})
    run = _predict(frozen_release, make_endpoint(max_concurrency=1), packages)
    outcomes = sorted(run.items.values_list("outcome", flat=True))
    assert outcomes == ["ok", "ok", "ok"]
    assert sum(run.items.values_list("requests", flat=True)) == 5


def test_a_timeout_is_retried(frozen_release, make_endpoint, packages, stand_in):
    stand_in.rules({"times": 1, "action": {"sleep_ms": 2500}})
    run = _predict(frozen_release, make_endpoint(timeout_seconds=1, max_concurrency=1), packages)
    timed_out = [i for i in run.items.all() if len(i.calls) == 2]
    assert len(timed_out) == 1
    assert timed_out[0].calls[0]["status"] is None
    assert "timeout" in timed_out[0].calls[0]["error"]
    assert timed_out[0].outcome == "ok"


def test_a_rerun_makes_no_call_for_ok_items_and_retries_api_errors(
    frozen_release, make_endpoint, packages, stand_in
):
    endpoint = make_endpoint(max_attempts=1, max_concurrency=1)
    stand_in.rules({"times": 1, "action": {"status": 500}})
    run = _predict(frozen_release, endpoint, packages)
    assert sorted(run.items.values_list("outcome", flat=True)) == ["api_error", "ok", "ok"]
    before = stand_in.stats()["requests"]
    run = _predict(frozen_release, endpoint, packages)  # the same command again
    assert stand_in.stats()["requests"] == before + 1  # only the api_error item
    assert list(run.items.values_list("outcome", flat=True)) == ["ok"] * 3
    again = stand_in.stats()["requests"]
    run = run_predict(
        name="p1",
        endpoint=endpoint,
        package=packages("frames-prediction"),
        condition="prompt_only",
        release=frozen_release,
    )
    assert run.status == "finished"  # nothing to do: finished at once, no driver queued
    run_drive(run_id=run.pk)
    assert stand_in.stats()["requests"] == again  # zero calls


def test_refusals_and_parse_failures_are_kept_unless_asked(
    frozen_release, make_endpoint, packages, stand_in
):
    endpoint = make_endpoint()
    stand_in.rules({"times": -1, "action": {"finish_reason": "content_filter"}})
    run = _predict(frozen_release, endpoint, packages)
    requests = stand_in.stats()["requests"]
    stand_in.rules()
    _predict(frozen_release, endpoint, packages)
    assert stand_in.stats()["requests"] == requests
    assert set(run.items.values_list("outcome", flat=True)) == {"refusal"}
    run = _predict(frozen_release, endpoint, packages, retry_failed=True)
    assert set(run.items.values_list("outcome", flat=True)) == {"ok"}


def test_a_second_run_with_the_same_inputs_is_served_from_the_cache(
    frozen_release, make_endpoint, packages, stand_in
):
    endpoint = make_endpoint()
    _predict(frozen_release, endpoint, packages, name="first")
    requests = stand_in.stats()["requests"]
    second = _predict(frozen_release, endpoint, packages, name="second")
    assert stand_in.stats()["requests"] == requests
    assert all(i.cached_from_id for i in second.items.all())
    assert list(second.items.values_list("outcome", flat=True)) == ["ok"] * 3


def test_the_cache_key_changes_with_the_model_and_the_package(
    frozen_release, make_endpoint, packages, stand_in
):
    _predict(frozen_release, make_endpoint(), packages, name="first")
    other = make_endpoint("other", model="stand-in-judge")
    second = _predict(frozen_release, other, packages, name="second")
    assert not any(i.cached_from_id for i in second.items.all())
    keys = set(RunItem.objects.values_list("cache_key", flat=True))
    assert len(keys) == 6


def test_scene_only_sends_the_scene_name_and_nothing_else(
    frozen_release, make_endpoint, packages, stand_in
):
    _predict(frozen_release, make_endpoint(), packages, condition="scene_only")
    body = stand_in.bodies(1)[0]
    text = str(body["messages"])
    assert '"scene": "kitchen"' in text
    for label in ("Fill the kettle", "Put the kettle", "indoor/kitchen", "secret-title"):
        assert label not in text
    assert str(RunItem.objects.first().sample_id) not in text
    assert body["temperature"] == 0
    assert body["response_format"]["type"] == "json_schema"


def test_outcomes_are_exactly_the_four(frozen_release, make_endpoint, packages, stand_in):
    assert set(Outcome.values) == {"ok", "parse_failure", "refusal", "api_error"}

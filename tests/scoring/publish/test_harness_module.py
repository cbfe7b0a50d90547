"""The shipped harness module (standard library only), as the lmms-eval and inspect_ai tasks use it:
the prompt is byte for byte the studio's, the judge retries (Retry-After honoured) and a judge
that fails is counted apart, never scored; standard errors are clustered by source video."""

import base64
import importlib.util
import json
import math
import sys
from pathlib import Path

import pytest

from annotation.models import Release
from scoring.models import MediaInterface
from scoring.packages import package_verified
from scoring.runs import run_predict
from scoring.runs.execute import PredictionHandler, request_body

pytestmark = pytest.mark.django_db


def harness(folder: Path):
    path = folder / "harness" / "intent_studio_harness.py"
    name = f"harness_{abs(hash(str(folder)))}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    before = set(sys.modules)
    sys.modules[name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    before.add(name)
    assert not any(m.startswith(("django", "scoring")) for m in set(sys.modules) - before)
    return module


@pytest.fixture
def folder(published_release, publish):
    return publish("media", conditions="official,ordered,scene_only,prompt_only")


def _decoded(part: dict) -> bytes:
    url = part[part["type"]]["url"]
    return base64.b64decode(url.split(",", 1)[1])


@pytest.mark.parametrize(
    ("condition", "interface"),
    [
        ("official", "frames"),
        ("official", "video"),
        ("ordered", "frames"),
        ("scene_only", "frames"),
        ("prompt_only", "frames"),
    ],
)
def test_the_prompt_is_the_one_studio_runs_send(
    folder, packages, make_endpoint, condition, interface
):
    """A studio run on the same set, condition and package builds exactly the messages the
    harness builds: the same system message, user text, and media bytes in the same order."""
    media = MediaInterface.FRAMES if interface == "frames" else MediaInterface.VIDEO_BASE64
    endpoint = make_endpoint(name=f"e-{condition}-{interface}", media=media)
    package = packages("official-prediction")
    run = run_predict(
        name=f"r-{condition}-{interface}",
        endpoint=endpoint,
        package=package,
        condition=condition,
        release=Release.objects.get(name="media"),
    )
    H = harness(folder)
    rows = {r["sample_id"]: r for r in H.rows(folder)}
    for item in run.items.all():
        request = PredictionHandler().prepare(run, item, record=False)
        parts = request.payload.parts if request.payload is not None else []
        studio = request_body(run, package_verified(package), request.data, parts)["messages"]
        system, user, paths = H.prediction_prompt(rows[item.key], condition, interface, folder)
        assert studio[0] == {"role": "system", "content": system}
        content = studio[1]["content"]
        if not paths:
            assert content == user
            continue
        assert content[0] == {"type": "text", "text": user}
        assert [_decoded(p) for p in content[1:]] == [Path(p).read_bytes() for p in paths]


def test_the_packages_are_refused_when_changed(folder):
    H = harness(folder)
    assert H.package("prediction", folder)["name"] == "official-prediction"
    path = folder / "packages" / "reference-judge.json"
    data = json.loads(path.read_text())
    data["system"] = data["system"].replace("0 to 100", "0 to 10")
    path.write_text(json.dumps(data))
    with pytest.raises(RuntimeError, match="the package was changed"):
        H.package("reference_judge", folder)


def _settings(H, stand_in, **kw):
    return H.JudgeSettings(
        base_url=stand_in.base_url,
        model="stand-in-judge",
        backoff_base=0.01,
        backoff_max=0.02,
        **kw,
    )


GOOD = {
    "local_intent": "Fill the kettle",
    "procedural_intent": "Boil water",
    "next_step": "Put it on",
}


def test_a_judge_that_fails_once_with_429_is_scored_as_its_answer(folder, stand_in):
    H = harness(folder)
    row = H.rows(folder)[0]
    stand_in.rules(
        {"model": "stand-in-judge", "times": 1, "action": {"status": 429, "retry_after": 1}}
    )
    waits = []
    settings = _settings(H, stand_in)
    system, user = H.judge_prompt(row, GOOD, folder)
    content, attempts = H.chat(
        settings, H.judge_body(settings, system, user, folder), sleep=waits.append
    )
    assert [a["status"] for a in attempts] == [429, 200] and waits == [1.0]  # Retry-After: 1
    scores = H.parse_judgement(content)
    result = H.score_reply(row, json.dumps(GOOD), _settings(H, stand_in), folder)
    assert result.status == "judged" and result.scores["local"] == scores["local"]
    assert [e["status"] for e in stand_in.stats()["log"]] == [429, 200, 200]


def test_a_judge_that_always_fails_is_a_judge_failure_never_a_score(folder, stand_in):
    H = harness(folder)
    row = H.rows(folder)[0]
    stand_in.rules({"model": "stand-in-judge", "times": -1, "action": {"status": 503}})
    result = H.score_reply(row, json.dumps(GOOD), _settings(H, stand_in, max_attempts=3), folder)
    assert result.status == "judge_failure" and result.scores == {}
    assert result.reason == "HTTP 503 after 3 attempt(s)"
    assert stand_in.stats()["requests"] == 3


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ({"status": 400, "message": "bad request"}, "the judge answered HTTP 400"),
        ({"content": "{}"}, "not one object with evaluations"),
        ({"finish_reason": "length"}, "ended with length"),
    ],
)
def test_other_judge_errors_are_failures_without_retry(folder, stand_in, action, reason):
    H = harness(folder)
    stand_in.rules({"model": "stand-in-judge", "times": -1, "action": action})
    result = H.score_reply(H.rows(folder)[0], json.dumps(GOOD), _settings(H, stand_in), folder)
    assert result.status == "judge_failure" and reason in result.reason
    assert stand_in.stats()["requests"] == 1


def test_a_reply_that_is_not_a_prediction_scores_zero_without_a_judge(folder, stand_in):
    H = harness(folder)
    for reply in ("I think it is tea.", json.dumps({**GOOD, "extra": "x"}), "", "```json\n{}"):
        result = H.score_reply(H.rows(folder)[0], reply, _settings(H, stand_in), folder)
        assert result.status == "invalid" and result.scores == {
            "local": 0,
            "procedural": 0,
            "next": 0,
        }
    assert stand_in.stats()["requests"] == 0


def test_the_summary_counts_failures_apart_and_clusters_by_video(folder):
    statsmodels = pytest.importorskip("statsmodels.api")
    import numpy as np

    H = harness(folder)
    values = [10, 40, 70, 20, 90, 55, 30]
    videos = ["a", "a", "b", "b", "b", "c", "c"]
    results = [
        {"video": v, "status": "judged", "scores": {"local": x, "procedural": x, "next": x}}
        for x, v in zip(values, videos, strict=True)
    ]
    results.append({"video": "d", "status": "judge_failure", "scores": {}})
    results.append(
        {"video": "c", "status": "invalid", "scores": {"local": 0, "procedural": 0, "next": 0}}
    )
    summary = H.summary(results)
    assert (summary["judged"], summary["judge_failures"], summary["invalid_predictions"]) == (
        7,
        1,
        1,
    )
    assert summary["scored"] == 8 and summary["judge_failure_videos"] == ["d"]
    scored = [*values, 0]
    groups = [*videos, "c"]
    assert summary["overall"] == pytest.approx(np.mean(scored))
    fit = statsmodels.OLS(np.array(scored, float), np.ones((8, 1))).fit(
        cov_type="cluster", cov_kwds={"groups": np.unique(groups, return_inverse=True)[1]}
    )
    assert summary["overall_se_clustered"] == pytest.approx(float(fit.bse[0]), rel=1e-12)
    assert math.isnan(H.summary([])["overall"])


def test_the_lmms_eval_tasks_name_hooks_their_utils_define(folder):
    """Every `!function utils.X` of every task YAML exists in the shipped utils.py, and the
    metrics the YAML lists are the ones process_results returns (lmms-eval itself runs them in
    test_harnesses.py)."""
    import re

    spec = importlib.util.spec_from_file_location("published_utils", folder / "lmms_eval/utils.py")
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    for path in (folder / "lmms_eval").glob("*.yaml"):
        text = path.read_text()
        for hook in re.findall(r"!function utils\.(\w+)", text):
            assert callable(getattr(utils, hook, None)), (path.name, hook)
        assert re.findall(r"- metric: (\w+)", text) == list(utils.METRICS)
        assert "test: ../data/test.parquet" in text and str(folder) not in text

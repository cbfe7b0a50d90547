"""The judges against the stand-in: anonymised, shuffled per step with the permutation stored,
every candidate answered exactly once, scores checked against their scales and bands, and a judge
failure never a score."""

import json

import pytest

from scoring.judges import batch_sizes, benchmark_scores, judge_start, qa_summary
from scoring.models import Judgement
from scoring.runs import RunError, run_drive, run_predict
from studio.canonical import seeded_rank

pytestmark = pytest.mark.django_db


@pytest.fixture
def predicted(frozen_release, make_endpoint, packages, stand_in):
    """Two finished prediction runs on the release, from two differently named endpoints."""
    runs = []
    for name, model in (("gpt-secret-model", "stand-in-vision"), ("qwen-secret", "stand-in-judge")):
        endpoint = make_endpoint(name, model=model)
        run = run_predict(
            name=f"run-{name}",
            endpoint=endpoint,
            package=packages("frames-prediction"),
            condition="prompt_only",
            release=frozen_release,
        )
        run_drive(run_id=run.pk)
        runs.append(run)
    stand_in.reset()
    return runs


def _judge(runs, endpoint, packages, kind="reference", package="reference-judge", **kw):
    run = judge_start(
        name=kw.pop("name", f"judge-{kind}"),
        kind=kind,
        endpoint=endpoint,
        package=packages(package),
        runs=runs,
        **kw,
    )
    run_drive(run_id=run.pk)
    run.refresh_from_db()
    return run


def test_reference_judge_scores_every_candidate_with_its_band(predicted, make_endpoint, packages):
    judge = _judge(predicted, make_endpoint("judge", model="stand-in-judge"), packages)
    rows = list(judge.judgements.all())
    assert len(rows) == 6 and {r.outcome for r in rows} == {"ok"}
    for r in rows:
        assert 0 <= r.local <= 100 and 0 <= r.procedural <= 100 and 0 <= r.next <= 100
        assert r.match_type in {"observed", "plausible", "related", "none"}
        assert r.band_consistent is True
    assert judge.items.count() == 6  # one candidate per call by default
    scores = benchmark_scores(predicted[0], judge)
    assert scores["steps"] == 3 and scores["scored"] == 3
    assert scores["means"]["overall"] == pytest.approx(
        sum(scores["means"][d] for d in ("local", "procedural", "next")) / 3
    )


def test_the_judge_request_carries_no_model_or_run_name(
    predicted, make_endpoint, packages, stand_in
):
    _judge(predicted, make_endpoint("judge", model="stand-in-judge"), packages, unit="step")
    for body in stand_in.bodies(10):
        text = json.dumps(body)
        for name in ("gpt-secret-model", "qwen-secret", "run-gpt", "stand-in-vision+"):
            assert name not in text
        data = json.loads(body["messages"][1]["content"].split("\n", 1)[1])
        assert [c["candidate_id"] for c in data["candidates"]] == ["C01", "C02"]
        assert set(data["reference"]) == {
            "local_intent",
            "procedural_intent",
            "observed_next_step",
            "plausible_next_steps",
        }


def test_per_step_unit_shuffles_deterministically_and_stores_the_permutation(
    predicted, make_endpoint, packages
):
    endpoint = make_endpoint("judge", model="stand-in-judge")
    one = _judge(predicted, endpoint, packages, unit="step", seed=7, name="a")
    two = _judge(predicted, endpoint, packages, unit="step", seed=7, name="b")
    order = lambda run: [  # noqa: E731
        (str(j.sample_id), j.subject_key, j.candidate_id, j.position)
        for j in run.judgements.order_by("sample_id", "position")
    ]
    assert order(one) == order(two)
    assert one.items.count() == 3
    assert {j.candidate_id: j.position for j in one.judgements.all()}.keys() == {"C01", "C02"}
    for sample in {j.sample_id for j in one.judgements.all()}:
        rows = list(one.judgements.filter(sample_id=sample).order_by("position"))
        keys = [j.subject_key for j in rows]
        assert keys == sorted(keys, key=lambda k: seeded_rank(7, f"{sample}:{k}"))
        assert [j.candidate_id for j in rows] == ["C01", "C02"]
        sent = one.items.get(sample_id=sample).input["candidates"]
        assert [c["next_step"] for c in sent] == [j.candidate["next_step"] for j in rows]


@pytest.mark.parametrize(
    "content",
    [
        # C02 answered twice, C01 missing
        {
            "evaluations": [
                {
                    "candidate_id": "C02",
                    "local_intent_score": 50,
                    "procedural_intent_score": 50,
                    "next_plan_score": 0,
                    "next_plan_match_type": "none",
                    "brief_reason": "",
                }
            ]
            * 2
        },
        # a score out of range
        {
            "evaluations": [
                {
                    "candidate_id": c,
                    "local_intent_score": 150,
                    "procedural_intent_score": 50,
                    "next_plan_score": 0,
                    "next_plan_match_type": "none",
                    "brief_reason": "",
                }
                for c in ("C01", "C02")
            ]
        },
        # a score as text
        {
            "evaluations": [
                {
                    "candidate_id": c,
                    "local_intent_score": "10",
                    "procedural_intent_score": 50,
                    "next_plan_score": 0,
                    "next_plan_match_type": "none",
                    "brief_reason": "",
                }
                for c in ("C01", "C02")
            ]
        },
    ],
)
def test_a_bad_judge_reply_is_a_parse_failure_with_no_score(
    predicted, make_endpoint, packages, stand_in, content
):
    stand_in.rules({"times": -1, "action": {"content": content}})
    judge = _judge(predicted, make_endpoint("judge", model="stand-in-judge"), packages, unit="step")
    assert set(judge.items.values_list("outcome", flat=True)) == {"parse_failure"}
    for row in judge.judgements.all():
        assert row.outcome == "parse_failure"
        assert (row.local, row.procedural, row.next) == (None, None, None)
    assert benchmark_scores(predicted[0], judge)["means"]["overall"] == 0


def test_a_next_score_outside_its_band_is_flagged(predicted, make_endpoint, packages, stand_in):
    reply = {
        "evaluations": [
            {
                "candidate_id": "C01",
                "local_intent_score": 80,
                "procedural_intent_score": 80,
                "next_plan_score": 50,
                "next_plan_match_type": "observed",
                "brief_reason": "r",
            }
        ]
    }
    stand_in.rules({"times": -1, "action": {"content": reply}})
    judge = _judge(predicted[:1], make_endpoint("judge", model="stand-in-judge"), packages)
    row = judge.judgements.first()
    assert row.outcome == "ok" and row.next == 50 and row.band_consistent is False


def test_failed_predictions_are_not_judged_and_score_zero(
    frozen_release, make_endpoint, packages, stand_in
):
    stand_in.rules({"times": 1, "action": {"finish_reason": "content_filter"}})
    endpoint = make_endpoint(max_concurrency=1)
    run = run_predict(
        name="p",
        endpoint=endpoint,
        package=packages("frames-prediction"),
        condition="prompt_only",
        release=frozen_release,
    )
    run_drive(run_id=run.pk)
    judge = _judge([run], make_endpoint("judge", model="stand-in-judge"), packages)
    assert judge.judgements.count() == 2
    assert judge.options["not_judged"] == {"refusal": 1}
    for body in stand_in.bodies(2):
        assert "stand-in scripted" not in json.dumps(body)
    scores = benchmark_scores(run, judge)
    assert scores["prediction_outcomes"] == {"ok": 2, "refusal": 1}
    total = sum(j.local for j in judge.judgements.all())
    assert scores["means"]["local"] == pytest.approx(total / 3)


def test_judging_an_unfinished_run_is_refused(frozen_release, make_endpoint, packages):
    run = run_predict(
        name="p",
        endpoint=make_endpoint(),
        package=packages("frames-prediction"),
        condition="prompt_only",
        release=frozen_release,
    )
    with pytest.raises(RunError, match="pending"):
        judge_start(
            name="j",
            kind="reference",
            endpoint=run.endpoint,
            package=packages("reference-judge"),
            runs=[run],
        )


def test_the_package_must_fit_the_judge(predicted, make_endpoint, packages):
    with pytest.raises(RunError, match="video_judge"):
        judge_start(
            name="j",
            kind="video",
            endpoint=make_endpoint("judge"),
            package=packages("reference-judge"),
            runs=predicted,
        )


def test_blind_rater_batches_answer_every_blind_id_once(
    predicted, make_endpoint, packages, stand_in
):
    judge = _judge(
        predicted,
        make_endpoint("judge", model="stand-in-judge"),
        packages,
        kind="rater",
        package="blind-rater",
    )
    assert judge.items.count() == 1  # six pairs: one batch
    rows = list(judge.judgements.all())
    assert len({r.candidate_id for r in rows}) == 6
    assert all(
        r.outcome == "ok" and set(r.reasons) == {"local", "procedural", "next"} for r in rows
    )
    data = json.loads(stand_in.bodies(1)[0]["messages"][1]["content"].split("\n", 1)[1])
    assert {i["blind_id"] for i in data["items"]} == {r.candidate_id for r in rows}


def test_a_rater_batch_missing_an_item_is_a_parse_failure(
    predicted, make_endpoint, packages, stand_in
):
    one = {
        "blind_id": "R0",
        "local_score_0_100": 1,
        "procedural_score_0_100": 1,
        "next_plan_score_0_100": 1,
        "local_reason_code": "other",
        "procedural_reason_code": "other",
        "next_plan_reason_code": "other",
        "brief_reason": "",
    }
    stand_in.rules({"times": -1, "action": {"content": {"evaluations": [one]}}})
    judge = _judge(
        predicted,
        make_endpoint("judge", model="stand-in-judge"),
        packages,
        kind="rater",
        package="blind-rater",
    )
    assert set(judge.judgements.values_list("outcome", flat=True)) == {"parse_failure"}
    assert "missing" in judge.items.get().detail


def test_batch_sizes_stay_between_10_and_20():
    assert batch_sizes(6, 15) == [6]
    for count in range(10, 400):
        sizes = batch_sizes(count, 15)
        assert sum(sizes) == count and all(10 <= s <= 20 for s in sizes), count


def test_qa_judge_keeps_errors_and_review_cases_apart(
    db, make_endpoint, packages, stand_in, tmp_path
):
    path = tmp_path / "qa.jsonl"
    records = [
        {
            "uid": "q1",
            "question": "What is poured?",
            "reference_answer": "hot water",
            "answer": "hot water",
        },
        {
            "uid": "q2",
            "question": "Which hand?",
            "reference_answer": "the left hand",
            "answer": "right",
        },
        {
            "uid": "q3",
            "question": "Where?",
            "reference_answer": "on the shelf",
            "answer": "on the shelf",
        },
        {"uid": "q4", "question": "What next?", "reference_answer": "close the tap", "answer": "x"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in records))
    inconsistent = {"correct": True, "score": 2, "justification": "contradiction"}
    stand_in.rules(
        {"contains": "on the shelf", "action": {"content": inconsistent}},
        {"contains": "close the tap", "times": -1, "action": {"status": 400, "message": "bad"}},
    )
    run = judge_start(
        name="qa",
        kind="qa",
        endpoint=make_endpoint("judge"),
        package=packages("qa-judge"),
        qa_file=path,
    )
    run_drive(run_id=run.pk)
    summary = qa_summary(run)
    assert summary == {
        "records": 4,
        "judged": 2,
        "accuracy": 0.5,
        "mean_score": summary["mean_score"],
        "review_cases": 1,
        "errors": {"api_error": 1},
        "pending": 0,
    }
    by_uid = {j.subject_key: j for j in Judgement.objects.filter(run=run)}
    assert by_uid["q1"].correct is True and by_uid["q1"].score >= 4
    assert by_uid["q2"].correct is False and by_uid["q2"].score <= 3
    assert by_uid["q3"].review is True
    assert by_uid["q4"].score is None


def test_a_bad_qa_file_names_its_line_and_writes_nothing(db, make_endpoint, packages, tmp_path):
    path = tmp_path / "qa.jsonl"
    path.write_text(
        '{"uid": "a", "question": "q", "reference_answer": "r", "answer": "a"}\n{"uid": 1}\n'
    )
    with pytest.raises(RunError, match="line 2"):
        judge_start(
            name="qa",
            kind="qa",
            endpoint=make_endpoint("judge"),
            package=packages("qa-judge"),
            qa_file=path,
        )
    assert not Judgement.objects.exists()

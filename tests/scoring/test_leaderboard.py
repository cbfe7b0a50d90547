"""The leaderboard: the full-benchmark rule (every step counts, failures score 0) computed by
hand from the stored judgements, groups, scenes, the model-level correlations, the command, the
page and its access."""

import json

import numpy as np
import pytest
from django.core.management import call_command
from django.urls import reverse
from scipy import stats

from scoring.judges import judge_start
from scoring.models import Judgement
from scoring.reports.leaderboard import leaderboard
from scoring.runs import run_drive, run_predict
from scoring.stats import rank_correlations

pytestmark = pytest.mark.django_db


@pytest.fixture
def board_runs(study_release, models, make_endpoint, packages, stand_in):
    """Two models on prompt_only; model-b's first call is a parse failure, its second refused."""
    models[1].open_weights = True
    models[1].save()
    stand_in.rules(
        {"model": "stand-in-vision-b", "times": 1, "action": {"content": "not json"}},
        {
            "model": "stand-in-vision-b",
            "times": 1,
            "action": {"status": 400, "code": "content_filter"},
        },
    )
    runs = []
    for endpoint in models:
        run = run_predict(
            name=f"lb-{endpoint.name}",
            endpoint=endpoint,
            package=packages("frames-prediction"),
            condition="prompt_only",
            release=study_release,
        )
        run_drive(run_id=run.pk)
        runs.append(run)
    judge = judge_start(
        name="lb-judge",
        kind="reference",
        endpoint=make_endpoint("judge", model="stand-in-judge"),
        package=packages("reference-judge"),
        runs=runs,
    )
    run_drive(run_id=judge.pk)
    return runs, judge


def _by_hand(run, judge):
    """Overall per step in plain Python: 0 unless the prediction and its judgement are ok."""
    out = {}
    for item in run.items.all():
        j = Judgement.objects.filter(run=judge, prediction=item, outcome="ok").first()
        out[item.key] = 0.0 if j is None else (j.local + j.procedural + j.next) / 3
    return out


def test_missing_scores_zero_and_every_number_is_the_hand_computation(study_release, board_runs):
    runs, judge = board_runs
    board = json.loads(leaderboard(release=study_release, condition="prompt_only")[0])
    rows = {r["model"]: r for r in board["models"]}
    b = rows["model-b"]
    assert (b["ok"], b["parse_failure"], b["refusal"], b["steps"]) == (4, 1, 1, 6)
    assert (b["pending"], b["missing"]) == (0, 0)
    assert b["group"] == "open" and rows["model-a"]["group"] == "closed"
    for run in runs:
        hand = _by_hand(run, judge)
        row = rows[run.endpoint.name]
        assert row["overall"] == pytest.approx(sum(hand.values()) / 6)
        scenes = {}
        for step in study_release.steps.all():
            scenes.setdefault(step.scene_slug, []).append(hand[str(step.sample_id)])
        macro = sum(sum(v) / len(v) for v in scenes.values()) / len(scenes)
        assert row["overall_scene_macro"] == pytest.approx(macro)
        for scene, values in scenes.items():
            cell = next(
                s for s in board["scenes"] if s["model"] == row["model"] and s["scene"] == scene
            )
            assert cell["overall"] == pytest.approx(sum(values) / len(values))
        assert row["gf"] is None  # no video judge here
    assert [r["overall"] for r in board["models"]] == sorted(
        (r["overall"] for r in board["models"]), reverse=True
    )
    assert board["correlation"]["models"] == 0 and board["correlation"]["pearson"] is None
    assert board["provenance"]["set"]["manifest_sha256"] == study_release.manifest_sha256


def test_model_level_correlations_are_scipys():
    rng = np.random.default_rng(3)
    x, y = rng.uniform(0, 100, 15), rng.uniform(0, 100, 15)
    pearson, spearman = rank_correlations(x, y)
    assert pearson == pytest.approx(stats.pearsonr(x, y)[0])
    assert spearman == pytest.approx(stats.spearmanr(x, y)[0])
    assert rank_correlations([1, 2], [3, 4]) == (None, None)
    assert rank_correlations([1, 1, 1], [3, 4, 5]) == (None, None)


def test_a_repeated_leaderboard_is_served_from_the_cache(study_release, board_runs):
    first, cached = leaderboard(release=study_release, condition="prompt_only")
    again, cached_again = leaderboard(release=study_release, condition="prompt_only")
    assert (cached, cached_again) == (False, True) and again == first


def test_command_and_page(client, admin_user, rater, study_release, board_runs, capsys):
    call_command("leaderboard", "--release", "sr", "--condition", "prompt_only", "--format", "csv")
    out = capsys.readouterr().out
    assert out.startswith("# format: ") and "\nmodel,group,requested_model," in out
    client.force_login(admin_user)
    url = reverse("scoring:leaderboard")
    page = client.get(url, {"release": "sr", "condition": "prompt_only"}).content.decode()
    assert "Closed models" in page and "Open-weight models" in page and "model-b" in page
    page = client.get(url, {"release": "sr", "condition": "prompt_only", "sort": "model"})
    assert page.status_code == 200
    data = client.get(url, {"release": "sr", "condition": "prompt_only", "format": "json"})
    assert json.loads(data.content)["condition"] == "prompt_only"
    assert client.get(url, {"release": "nope"}).status_code == 404
    chart = reverse("scoring:leaderboard-chart", args=["bars", "svg"])
    svg = client.get(chart, {"release": "sr", "condition": "prompt_only"})
    assert svg.status_code == 200 and svg.content.startswith(b"<svg")
    # No set named: the newest frozen release, under the condition its runs have
    assert client.get(chart).content == svg.content
    assert "Leaderboard of release sr" in client.get(url).content.decode()
    client.force_login(rater)
    assert client.get(url, {"release": "sr"}).status_code == 404
    assert client.get(url).status_code == 404
    assert client.get(chart, {"release": "sr", "condition": "prompt_only"}).status_code == 404


def _import_judge(tmp_path, name, kind, run, scores_of, endpoint, package):
    """A judge run of ``run`` imported from lines whose scores ``scores_of(i)`` gives (None: the
    judge failed on that step)."""
    from scoring.judges.imports import judgements_import

    lines = []
    for i, item in enumerate(run.items.filter(outcome="ok").order_by("key")):
        scores = scores_of(i)
        subject = {"kind": "prediction", "run": run.name, "sample": item.key}
        outcome = "ok" if scores is not None else "parse_failure"
        lines.append({"subject": subject, "judgement_outcome": outcome, "scores": scores})
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return judgements_import(
        name=name, path=path, kind=kind, runs=[run], endpoint=endpoint, package=package
    )


def test_the_newest_judges_count_and_video_scores_are_times_25(
    study_release, board_runs, make_endpoint, packages, tmp_path
):
    runs, _old_judge = board_runs
    b = next(r for r in runs if r.endpoint.name == "model-b")  # 4 ok predictions of 6 steps
    judge = make_endpoint("judge-2", model="stand-in-judge")
    newer = _import_judge(
        tmp_path, "ref-2", "reference", b,
        lambda i: None if i == 0 else {"local": 10 * i, "procedural": 20, "next": 30},
        judge, packages("reference-judge"),
    )  # fmt: skip
    video = _import_judge(
        tmp_path, "vid-1", "video", b,
        lambda i: None if i == 3 else {"gf": i, "hic": 4, "tpc": 0, "npf": 2},
        judge, packages("video-judge"),
    )  # fmt: skip
    board = json.loads(leaderboard(release=study_release, condition="prompt_only")[0])
    row = next(r for r in board["models"] if r["model"] == "model-b")
    assert (row["reference_judge"], row["video_judge"]) == (newer.name, video.name)
    assert row["judged"] == 3  # the first ok prediction's judgement failed
    # Six steps; the failed predictions, the failed judgements and the rest score 0.
    assert row["local"] == pytest.approx((10 + 20 + 30) / 6)
    assert row["procedural"] == pytest.approx(20 * 3 / 6)
    assert row["overall"] == pytest.approx((60 + 60 + 90) / 3 / 6)
    assert row["gf"] == pytest.approx(25 * (0 + 1 + 2) / 6)
    assert row["hic"] == pytest.approx(25 * 4 * 3 / 6)
    assert row["npf"] == pytest.approx(25 * 2 * 3 / 6) and row["tpc"] == 0
    assert row["diagnostic_average"] == pytest.approx(
        (row["gf"] + row["hic"] + row["tpc"] + row["npf"]) / 4
    )
    a = next(r for r in board["models"] if r["model"] == "model-a")
    assert a["video_judge"] is None and a["gf"] is None
    assert board["correlation"]["models"] == 1


def test_a_resumed_or_refinished_run_is_a_new_key_and_a_live_run_is_counted(
    study_release, board_runs, stand_in
):
    from django.utils import timezone

    from scoring.models import Run, RunItem
    from scoring.runs import run_resume

    first, _ = leaderboard(release=study_release, condition="prompt_only")
    runs, _judge = board_runs
    b = Run.objects.get(pk=next(r.pk for r in runs if r.endpoint.name == "model-b"))
    assert leaderboard(release=study_release, condition="prompt_only") == (first, True)
    # Reopen model-b's refusal and parse failure; the stand-in now answers them. While the run is
    # open its items are counted: one stored result is a new key.
    Run.objects.filter(pk=b.pk).update(status="running", finished_at=None)
    live, cached = leaderboard(release=study_release, condition="prompt_only")
    assert not cached and json.loads(live)["inputs_sha256"] != json.loads(first)["inputs_sha256"]
    item = b.items.filter(outcome="refusal").get()
    RunItem.objects.filter(pk=item.pk).update(outcome="api_error", finished_at=timezone.now())
    changed, cached = leaderboard(release=study_release, condition="prompt_only")
    assert not cached and json.loads(changed)["models"] != json.loads(live)["models"]
    Run.objects.filter(pk=b.pk).update(status="finished", finished_at=b.finished_at)
    assert leaderboard(release=study_release, condition="prompt_only") == (first, True)
    finished_at = b.finished_at
    run_resume(run=b, retry_failed=True)
    run_drive(run_id=b.pk)
    b.refresh_from_db()
    assert b.status == "finished" and b.finished_at != finished_at
    board, cached = leaderboard(release=study_release, condition="prompt_only")
    assert not cached
    assert next(r for r in json.loads(board)["models"] if r["model"] == "model-b")["ok"] == 6


def test_a_model_no_judge_scored_reads_not_judged_and_gets_an_offer(
    client, admin_user, study_release, models, packages, stand_in
):
    """A prediction run without a reference judge: not judged (never 0.00), no rank, left out
    of the charts, and the page offers its reference judge; only the conditions that have runs
    are offered."""
    run = run_predict(name="lb-alone", endpoint=models[0], package=packages("frames-prediction"),
                      condition="prompt_only", release=study_release)  # fmt: skip
    run_drive(run_id=run.pk)
    client.force_login(admin_user)
    page = client.get(reverse("scoring:leaderboard")).content.decode()
    assert "Leaderboard of release sr · Prompt only" in page
    row = page[page.index('data-model="model-a"') :].split("</tr>")[0]
    assert "not judged" in row and "0.00" not in row
    assert '<option value="prompt_only" selected>Prompt only</option>' in page
    assert 'value="official"' not in page  # no run under Official
    assert "lb-alone has no reference judge yet" in page
    assert f'action="{reverse("scoring:run-judge", args=[run.pk])}"' in page
    assert 'data-chart="bars"' not in page  # nothing judged: nothing to draw


def test_steps_a_run_has_no_item_for_are_missing_not_pending(study_release, board_runs, client,
                                                              admin_user):  # fmt: skip
    """A run over part of the set (imported predictions for some steps, say): the other steps
    score 0 and are counted as missing, not as pending work."""
    runs, _judge = board_runs
    gone = list(runs[0].items.order_by("position").values_list("pk", flat=True)[:2])
    Judgement.objects.filter(prediction_id__in=gone).delete()
    runs[0].items.filter(pk__in=gone).delete()
    board = json.loads(leaderboard(release=study_release, condition="prompt_only")[0])
    row = {r["model"]: r for r in board["models"]}[runs[0].endpoint.name]
    assert (row["ok"], row["pending"], row["missing"], row["steps"]) == (4, 0, 2, 6)
    client.force_login(admin_user)
    page = client.get(reverse("scoring:leaderboard"), {"release": study_release.name,
                                                       "condition": "prompt_only"})  # fmt: skip
    assert "not in the run 2" in page.content.decode()

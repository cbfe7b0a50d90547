"""Judge validation end to end on the database: the pool from prediction runs, the frozen
design, ratings imported (all or nothing) and exported, judge runs on the same predictions, and
the report through the command (json and csv) equal to the pure report on the same rows."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from review.campaigns.services import campaign_create
from review.judgeval.imports import ImportRefused, ratings_export, ratings_load
from review.judgeval.models import JudgeTriplet
from scoring.judgeval.pool import judgeval_pool_freeze, split_runs, triplet_pool
from scoring.judgeval.reading import campaign_report
from tests.conftest import _user
from tests.review.judgeval_world import PARAMS

pytestmark = pytest.mark.django_db
S = 1_000_000


@pytest.fixture
def setup(make_video, annotator, admin_user, django_user_model, rater):
    from annotation.releases import release_freeze
    from annotation.services import step_create
    from media.models import Scene
    from scoring.models import Endpoint, Judgement, Run, RunItem
    from scoring.packages import package_resolve, packages_sync_builtin

    packages_sync_builtin()
    a = Scene.objects.create(slug="indoor/attic", name="Attic", setting="indoor")
    b = Scene.objects.create(slug="outdoor/porch", name="Porch", setting="outdoor")
    for v, where in enumerate((a, b)):
        video = make_video(scene=where, title=f"jv-{v}.mp4")
        for i in range(3):
            step_create(
                video=video, author=annotator, start_us=i * 3 * S, cutoff_us=i * 3 * S + S,
                outcome_us=i * 3 * S + S, end_us=i * 3 * S + 2 * S, local_intent=f"L{v}{i}",
                procedural_intent=f"P{v}{i}", next_step=f"N{v}{i}",
            )  # fmt: skip
    release = release_freeze(name="jvr", author=admin_user)
    closed_ep = Endpoint.objects.create(
        name="closed-ep", base_url="http://127.0.0.1:9/v1", model="c"
    )
    open_ep = Endpoint.objects.create(
        name="open-ep", base_url="http://127.0.0.1:9/v1", model="o", open_weights=True
    )
    package = package_resolve("official-prediction")
    runs = {}
    from annotation.models import ReleaseStep

    steps = list(ReleaseStep.objects.filter(release=release).order_by("sample_id"))
    for name, endpoint in (("pred-closed", closed_ep), ("pred-open", open_ep)):
        run = Run.objects.create(
            name=name, kind="prediction", release=release, condition="official",
            endpoint=endpoint, package=package, status="finished",
        )  # fmt: skip
        for i, rs in enumerate(steps):
            RunItem.objects.create(
                run=run, position=i, key=str(rs.sample_id), sample_id=rs.sample_id, state="done",
                outcome="ok", prediction={"local_intent": f"{name[5:]}-says {i}",
                                          "procedural_intent": "p", "next_step": "n"},
            )  # fmt: skip
        runs[name] = run
    judge = Run.objects.create(
        name="ref-judge", kind="reference", endpoint=closed_ep,
        package=package_resolve("reference-judge"), status="finished",
    )  # fmt: skip
    raters = [rater, *(_user(django_user_model, n, "rater") for n in ("rhea", "ravi"))]
    return {"release": release, "runs": runs, "judge": judge, "raters": raters,
            "Judgement": Judgement, "RunItem": RunItem}  # fmt: skip


def freeze(setup):
    closed, opened = split_runs(list(setup["runs"].values()))
    return judgeval_pool_freeze(
        name="jvm", release=setup["release"], closed=closed, opened=opened, seed=3, params=PARAMS
    )


def test_pool_from_runs_and_freeze(setup):
    closed, opened = split_runs(list(setup["runs"].values()))
    assert [r.name for r in closed] == ["pred-closed"] and [r.name for r in opened] == ["pred-open"]
    pool, texts = triplet_pool(release=setup["release"], closed=closed, opened=opened)
    assert len(pool) == 6 and len(texts) == 12
    manifest = freeze(setup)
    assert manifest.sample_count == 4
    triplet = JudgeTriplet.objects.filter(manifest=manifest, slot="open").first()
    assert triplet.run_name == "pred-open" and triplet.local.startswith("open-says ")


def ratings_file(campaign, raters, *, scores=lambda r, i: (50 + r, 40 + i, 30)):
    lines = []
    # i is the triplet's position, not its id: ids grow with every test on PostgreSQL.
    triplets = JudgeTriplet.objects.filter(manifest=campaign.manifest).order_by("id")
    for i, t in enumerate(triplets):
        for r, user in enumerate(raters):
            local, procedural, nxt = scores(r, i)
            lines.append({"rater": user.username, "step": str(t.sample.sample_id),
                          "run": t.run_name, "local": local, "procedural": procedural,
                          "next": nxt})  # fmt: skip
    return lines


def test_import_export_round_trip_and_report(setup, tmp_path):
    manifest = freeze(setup)
    campaign = campaign_create(
        name="jvc", kind="judge_validation", manifest=manifest, people=setup["raters"]
    )
    lines = ratings_file(campaign, setup["raters"])
    counts = ratings_load(campaign=campaign, lines=lines)
    assert counts == {"ratings": 24, "steps": 12}
    exported = list(ratings_export(campaign=campaign))
    assert sorted(json.dumps(x, sort_keys=True) for x in exported) == sorted(
        json.dumps(x, sort_keys=True) for x in lines
    )
    # A judge run on the same predictions.
    Judgement, RunItem = setup["Judgement"], setup["RunItem"]
    for n, item in enumerate(RunItem.objects.filter(run__kind="prediction").order_by("id")):
        unit = RunItem.objects.create(
            run=setup["judge"], position=n, key=f"u{n}", state="done", outcome="ok"
        )
        Judgement.objects.create(
            run=setup["judge"], item=unit, subject_kind="prediction",
            subject_key=f"{item.run.name}:{item.sample_id}", prediction=item, candidate_id="C01",
            position=0, candidate={}, outcome="ok", local=60, procedural=40 + n % 3, next=20,
        )  # fmt: skip
    report = campaign_report(campaign=campaign, n_resamples=200)
    assert report["complete_triplets"] == 8
    judge = report["judges"][0]
    assert judge["judge"] == "ref-judge" and judge["n"] == 8
    # Humans: local 50/51/52 -> mean 51; judge 60: bias +9 exactly, for every triplet.
    assert judge["agreement"]["local"]["bias"] == pytest.approx(9.0)
    assert judge["agreement"]["next"]["mae"] == pytest.approx(10.0)
    out = io.StringIO()
    call_command("judge_validation_report", "jvc", "--format", "json", "--resamples", "200",
                 stdout=out)  # fmt: skip
    assert json.loads(out.getvalue())["judges"][0]["agreement"] == judge["agreement"]
    out = io.StringIO()
    call_command("judge_validation_report", "jvc", "--format", "csv", "--resamples", "200",
                 stdout=out)  # fmt: skip
    assert out.getvalue().startswith("section,judge,dimension")
    path = tmp_path / "ratings.jsonl"
    call_command("judge_validation_export_ratings", "jvc", "-o", str(path))
    assert len(path.read_text().splitlines()) == 24


def test_a_bad_file_is_refused_with_line_numbers_and_nothing_written(setup, tmp_path):
    from review.campaigns.models import Submission

    manifest = freeze(setup)
    campaign = campaign_create(
        name="jvc", kind="judge_validation", manifest=manifest, people=setup["raters"]
    )
    lines = ratings_file(campaign, setup["raters"])
    lines[0]["local"] = 101
    lines[1]["rater"] = "nobody"
    lines[2]["run"] = "pred-other"
    lines[3]["colour"] = "red"
    lines.append(dict(lines[5]))
    with pytest.raises(ImportRefused) as caught:
        ratings_load(campaign=campaign, lines=lines)
    numbers = {n for n, _ in caught.value.problems}
    assert {1, 2, 3, 4, len(lines)} <= numbers
    assert not Submission.objects.filter(campaign=campaign).exists()
    path = tmp_path / "bad.jsonl"
    path.write_text('{"rater": "x"\n', encoding="utf-8")
    with pytest.raises(CommandError, match="line 1: not JSON"):
        call_command("judge_validation_import_ratings", "jvc", str(path))


def test_freeze_command_preview_and_infeasible_message(setup):
    out = io.StringIO()
    call_command("judge_validation_freeze", "jvm", "--release", "jvr",
                 "--runs", "pred-closed,pred-open", "--seed", "3", "--params", json.dumps(PARAMS),
                 "--preview", stdout=out)  # fmt: skip
    assert json.loads(out.getvalue())["steps"] == 4
    bad = {**PARAMS, "triplets_per_model": 5}
    with pytest.raises(CommandError, match="triplets per model"):
        call_command(
            "judge_validation_freeze", "jvm", "--release", "jvr", "--runs",
            "pred-closed,pred-open", "--seed", "3", "--params", json.dumps(bad),
        )  # fmt: skip


def test_report_page_for_admins_only(setup, admin_user, client):
    from django.test import Client
    from django.urls import reverse

    manifest = freeze(setup)
    campaign = campaign_create(
        name="jvc", kind="judge_validation", manifest=manifest, people=setup["raters"]
    )
    ratings_load(campaign=campaign, lines=ratings_file(campaign, setup["raters"]))
    url = reverse("scoring:judgeval-report", args=[campaign.pk])
    rater = Client()
    rater.force_login(setup["raters"][0])
    assert rater.get(url).status_code == 404
    assert rater.get(reverse("scoring:judgeval-list")).status_code == 404
    client.force_login(admin_user)
    listed = client.get(reverse("scoring:judgeval-list"))
    assert listed.status_code == 200 and "jvc" in listed.content.decode()
    page = client.get(url)
    assert page.status_code == 200
    assert "Human reliability" in page.content.decode()
    assert client.get(url + "?format=json").json()["complete_triplets"] == 8
    assert client.get(url + "?format=csv").content.decode().startswith("section,")
    home = client.get("/").content.decode()
    assert reverse("scoring:judgeval-list") in home


def test_a_rater_never_sees_automatic_scores_or_run_names(setup):
    """With a judge run on the same predictions, a rater's pages and answers hold no judge run,
    prediction run, endpoint or model name and none of the judge's justification."""
    from django.test import Client
    from django.urls import reverse

    from review.campaigns.services import claim_next

    manifest = freeze(setup)
    campaign = campaign_create(
        name="jvc", kind="judge_validation", manifest=manifest, people=setup["raters"]
    )
    Judgement, RunItem = setup["Judgement"], setup["RunItem"]
    for n, item in enumerate(RunItem.objects.filter(run__kind="prediction").order_by("id")):
        unit = RunItem.objects.create(
            run=setup["judge"], position=n, key=f"u{n}", state="done", outcome="ok"
        )
        Judgement.objects.create(
            run=setup["judge"], item=unit, subject_kind="prediction",
            subject_key=f"{item.run.name}:{item.sample_id}", prediction=item, candidate_id="C01",
            position=0, candidate={}, outcome="ok", local=61, procedural=62, next=63,
            justification="marmot-justification",
        )  # fmt: skip
    rater = setup["raters"][0]
    client = Client()
    client.force_login(rater)
    texts = [client.get("/").content.decode()]
    for _ in range(4):
        assignment = claim_next(campaign=campaign, person=rater)
        if assignment is None:
            break
        texts.append(client.get(reverse("judgeval:item", args=[assignment.token])).content.decode())
        for part in ("first", "second"):
            state = client.get(reverse("judgeval:item-state", args=[assignment.token]))
            texts.append(state.content.decode())
            answer = client.post(
                reverse("judgeval:item-submit", args=[assignment.token]),
                json.dumps({"part": part, "payload": {"local": 1, "procedural": 2, "next": 3}}),
                content_type="application/json",
            )
            texts.append(answer.content.decode())
    body = "\n".join(texts)
    assert len(texts) > 8
    hidden = ["marmot", "ref-judge", "pred-closed", "pred-open", "closed-ep", "open-ep"]
    hidden += ['"local": 61', '"procedural": 62', "indoor/attic", "outdoor/porch", "jv-0.mp4"]
    for secret in hidden:
        assert secret not in body, secret


def test_rater_columns_follow_the_rater_ids_when_raters_differ_across_triplets(
    setup, django_user_model
):
    """Finding 6 of issue 23: the columns were ordered by user name. Here four raters whose names
    sort otherwise than their ids (zoe, amy, mia, bob by id) share the triplets three at a time,
    so name order permutes each triplet's columns differently, and ICC(2,k), its interval and
    the leave-one-out figures depend on the order."""
    import numpy as np

    from scoring.judgeval.report import _with_overall
    from scoring.stats import icc_2k, icc_2k_interval

    raters = [_user(django_user_model, n, "rater") for n in ("zoe", "amy", "mia", "bob")]
    assert [r.pk for r in raters] == sorted(r.pk for r in raters)
    manifest = freeze(setup)
    campaign = campaign_create(
        name="jvc", kind="judge_validation", manifest=manifest, people=raters, per_item=3
    )
    triplets = list(JudgeTriplet.objects.filter(manifest=manifest).order_by("id"))
    steps = sorted({str(t.sample.sample_id) for t in triplets})
    lines, expected = [], {}
    for t in triplets:
        step = str(t.sample.sample_id)
        left_out = steps.index(step) % 4  # each step is rated by three of the four
        i = triplets.index(t)
        row = []
        for r, user in enumerate(raters):
            if r == left_out:
                continue
            local, procedural, nxt = 20 + 15 * r + 3 * i, 30 + 7 * r * (i % 3), 10 + 11 * r
            lines.append({"rater": user.username, "step": step, "run": t.run_name,
                          "local": local, "procedural": procedural, "next": nxt})  # fmt: skip
            row.append((user.pk, user.username, (local, procedural, nxt)))
        expected[(step, t.run_name)] = row
    ratings_load(campaign=campaign, lines=lines)
    report = campaign_report(campaign=campaign, n_resamples=50)
    assert report["complete_triplets"] == len(triplets) == 8
    assert report["raters"] == ["zoe", "amy", "mia", "bob"]  # rater-id order, not by name

    def matrix(key):
        rows = [sorted(expected[k], key=key) for k in sorted(expected)]
        return np.array([[_with_overall(np.array(s, dtype=float)) for *_, s in row]
                         for row in rows])  # fmt: skip

    by_id, by_name = matrix(lambda x: x[0]), matrix(lambda x: x[1])
    for d, dim in enumerate(("local", "procedural", "next", "overall")):
        got = report["humans"][dim]
        assert got["icc_2k"] == pytest.approx(icc_2k(by_id[:, :, d]))
        assert got["icc_2k_ci"] == pytest.approx(list(icc_2k_interval(by_id[:, :, d])))
    # The order matters here: by name, ICC(2,k) and the first leave-one-out column differ.
    assert icc_2k(by_name[:, :, 0]) != pytest.approx(icc_2k(by_id[:, :, 0]))
    first = report["leave_one_out"]["humans"][0]["local"]
    others = by_id[:, 1:, 0].mean(axis=1)
    assert first["mae"] == pytest.approx(np.abs(by_id[:, 0, 0] - others).mean())


def test_the_report_offers_its_judges_and_shows_alphas_interval(setup, admin_user, client):
    """No judge has scored the triplets' predictions: the page offers the reference judge and
    the blind LLM rater, each with our package preselected, and starting one judges every
    prediction run of the campaign; alpha comes with its clustered interval."""
    from django.urls import reverse

    from scoring.models import Run

    manifest = freeze(setup)
    campaign = campaign_create(
        name="jvc", kind="judge_validation", manifest=manifest, people=setup["raters"]
    )
    ratings_load(campaign=campaign, lines=ratings_file(campaign, setup["raters"]))
    client.force_login(admin_user)
    url = reverse("scoring:judgeval-report", args=[campaign.pk])
    page = client.get(url).content.decode()
    assert "No reference-based judge has scored these predictions yet." in page
    assert "No blind LLM rater has scored these predictions yet." in page
    assert 'value="jvc-reference"' in page and 'value="jvc-rater"' in page
    reference = setup["judge"].package
    assert f'<option value="{reference.pk}" selected>' in page  # the previous judge's package
    humans = client.get(url + "?format=json").json()["humans"]
    for dim in ("local", "procedural", "overall"):
        low, high = humans[dim]["alpha_ci"]
        assert low is not None and low - 1e-9 <= humans[dim]["alpha"] <= high + 1e-9
    # every rater gave Next 30: no variation, no alpha and no interval
    assert humans["next"]["alpha"] is None and humans["next"]["alpha_ci"] == [None, None]
    assert "95% interval</th><th>N</th>" in page
    action = reverse("scoring:judgeval-judge", args=[campaign.pk])
    refused = client.post(action, {"kind": "video", "name": "x"})
    assert refused.status_code == 404
    bad = client.post(action, {"kind": "reference", "name": "jvc-reference"}, follow=True)
    assert "The judge was not started: Judge endpoint: This field is required." in (
        bad.content.decode()
    )
    assert not Run.objects.filter(name="jvc-reference").exists()
    started = client.post(
        action,
        {
            "kind": "reference",
            "name": "jvc-reference",
            "endpoint": setup["judge"].endpoint_id,
            "package": reference.pk,
        },
    )
    run = Run.objects.get(name="jvc-reference")
    assert started.status_code == 302 and started["Location"] == f"/runs/{run.pk}/"
    assert run.kind == "reference"
    assert sorted(run.sources.values_list("name", flat=True)) == ["pred-closed", "pred-open"]

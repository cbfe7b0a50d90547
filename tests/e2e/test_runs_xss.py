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


def test_a_qa_runs_answers_never_execute(open_as, admin_user, tmp_path, stand_in):
    """A QA run's turns carry a model's answers (and the group's questions) onto the run and
    item pages, and its QA report: a payload in every answer stays text."""
    import shutil

    from media.models import Scene
    from media.services import video_import
    from media.synth import synth_video
    from review.qa.imports import qa_import
    from review.qa.sampling import qa_manifest_freeze
    from scoring.endpoints import endpoint_create
    from scoring.packages import package_resolve, packages_sync_builtin
    from scoring.qa.runs import qa_predict
    from scoring.runs import run_drive
    from tests.review.qa.helpers import group, jsonl

    source = synth_video(tmp_path / "qa-xss.mp4", seconds=5, fps=30).path
    shutil.copyfile(source, tmp_path / "qa-xss-copy.mp4")
    scene = Scene.objects.get_or_create(
        slug="indoor/xss", defaults={"name": "XSS", "setting": "indoor"}
    )[0]
    video = video_import(path=tmp_path / "qa-xss-copy.mp4", scene=scene, title="qa-xss.mp4",
                         user=admin_user)  # fmt: skip
    record = group(1, video.sha256, structure="chain", turns=2)
    record["turns"][0]["question"] = f"What happens next? {ONERROR}"
    group_set, _ = qa_import(text=jsonl([record]), name="qa_xss_set", author=admin_user)
    manifest = qa_manifest_freeze(group_set=group_set, name="qa_xss_manifest", seed=1,
                                  params={"n_groups": 1}, author=admin_user)  # fmt: skip
    packages_sync_builtin()
    endpoint = endpoint_create(name="qa-xss", base_url=stand_in.base_url, model="stand-in-vision")
    stand_in.rules({"times": -1, "action": {"content": json.dumps({"answer": SCRIPT + SVG})}})
    run = qa_predict(name="qa-xss-run", manifest=manifest, endpoint=endpoint,
                     package=package_resolve("qa-prediction"), media="text_only")  # fmt: skip
    run_drive(run_id=run.pk)
    items = list(run.items.order_by("position"))
    assert [i.prediction["answer"] for i in items] == [SCRIPT + SVG] * 2
    page = open_as(admin_user).new_page()
    dialogs = open_as.dialogs
    for url, shown in [
        (f"/runs/{run.pk}/", None),
        *((f"/runs/{run.pk}/items/{i.pk}/", SCRIPT) for i in items),
        (f"/admin/scoring/runitem/{items[0].pk}/change/", None),
        (f"/runs/qa/report/?runs={run.name}", None),
    ]:
        page.goto(url)
        if shown is not None:
            assert shown in page.inner_text("body"), url
        assert_inert(page, dialogs)


def test_a_qa_audits_pages_never_execute(open_as, admin_user, tmp_path, stand_in):
    """An audit's page names each group by its video's title and shows the runs it read: a
    payload in the title stays text on the audit list, the audit page and the campaign form."""
    import shutil

    from media.models import Scene
    from media.services import video_import
    from media.synth import synth_video
    from review.qa.imports import qa_import
    from review.qa.sampling import qa_manifest_freeze
    from scoring.endpoints import endpoint_create
    from scoring.packages import package_resolve, packages_sync_builtin
    from scoring.qa.audits import qa_audit_create
    from scoring.qa.runs import qa_predict
    from scoring.runs import run_drive
    from tests.review.qa.helpers import group, jsonl

    source = synth_video(tmp_path / "audit-xss.mp4", seconds=5, fps=30).path
    shutil.copyfile(source, tmp_path / "audit-xss-copy.mp4")
    scene = Scene.objects.get_or_create(
        slug="indoor/xss", defaults={"name": "XSS", "setting": "indoor"}
    )[0]
    video = video_import(path=tmp_path / "audit-xss-copy.mp4", scene=scene,
                         title=f"audit{ONERROR}.mp4", user=admin_user)  # fmt: skip
    record = group(1, video.sha256)
    record["turns"][0]["options"] = ["Answer 0", "Something else"]  # no judge needed
    group_set, _ = qa_import(text=jsonl([record]), name="audit_xss_set", author=admin_user)
    manifest = qa_manifest_freeze(group_set=group_set, name="audit_xss_manifest", seed=1,
                                  params={"n_groups": 1}, author=admin_user)  # fmt: skip
    packages_sync_builtin()
    endpoint = endpoint_create(name="audit-xss", base_url=stand_in.base_url,
                               model="stand-in-vision")  # fmt: skip
    stand_in.rules({"times": -1, "action": {"content": json.dumps({"answer": "A"})}})
    run = qa_predict(name="audit-xss-run", manifest=manifest, endpoint=endpoint,
                     package=package_resolve("qa-prediction"), media="text_only")  # fmt: skip
    run_drive(run_id=run.pk)
    audit = qa_audit_create(name="audit-xss", runs={"text_only": [run]})
    assert audit.result["counts"]["language_shortcut"] == 1
    page = open_as(admin_user).new_page()
    dialogs = open_as.dialogs
    for url, shown in [
        ("/qa-audits/", None),
        (f"/qa-audits/{audit.pk}/", ONERROR),
        (f"/qa-audits/{audit.pk}/?show=all", ONERROR),
        (f"/runs/{run.pk}/", None),
    ]:
        page.goto(url)
        if shown is not None:
            assert shown in page.inner_text("body"), url
        assert_inert(page, dialogs)
    # A refused campaign (no reviewer chosen) shows the page again, still inert.
    page.goto(f"/qa-audits/{audit.pk}/")
    page.click("#audit-campaign button[type=submit]")
    assert ONERROR in page.inner_text("body")
    assert_inert(page, dialogs)

"""QA runs against the stand-in provider: every group a dialogue on the model's own answers, a
real rendered clip, the cache, a failure that ends the dialogue, blinding, and the QA judge over
the open-ended turns."""

from __future__ import annotations

import json
import re

import pytest

from media.models import Scene
from media.services import video_import
from media.synth import synth_video
from review.qa.imports import qa_import
from review.qa.sampling import qa_manifest_freeze
from scoring.models import ItemState, Judgement, Outcome, Run, RunItem
from scoring.qa.results import qa_run_summary, turn_rows
from scoring.qa.runs import qa_predict
from scoring.runs import RunError, run_drive
from scoring.runs.export import run_lines
from scoring.runs.progress import run_progress
from tests.review.qa.helpers import at_frame, evidence, group, jsonl
from tests.scoring.conftest import render_run_media

REFERENCES = ["zebra-reference-one", "zebra-reference-two", "zebra-option-right"]
SINGLE_REFERENCE = "okapi-reference-single"
DESCRIPTIONS = ["hidden evidence: the kettle lid", "hidden evidence: a whistle sounds"]


@pytest.fixture(scope="module")
def qa_source(tmp_path_factory):
    folder = tmp_path_factory.mktemp("qa-run-source")
    return synth_video(folder / "giraffe-hidden-title.mp4", seconds=5, fps=30).path


@pytest.fixture
def qa_world(db, qa_source, admin_user, tmp_path):
    import shutil

    copy = tmp_path / "giraffe-hidden-title.mp4"
    shutil.copyfile(qa_source, copy)
    scene = Scene.objects.get_or_create(
        slug="indoor/tea_room", defaults={"name": "Tea Room", "setting": "indoor"}
    )[0]
    video = video_import(path=copy, scene=scene, title="giraffe-hidden-title.mp4", user=admin_user)
    chain = group(1, video.sha256, structure="chain", turns=3, modality="audio_visual")
    for turn, reference in zip(chain["turns"], REFERENCES, strict=True):
        turn["answer"] = reference
        for e in turn["evidence"]:
            e["description"] = DESCRIPTIONS[0]
    chain["turns"][1]["evidence"] = [evidence(40, 60, "auditory", DESCRIPTIONS[1])]
    chain["turns"][2]["options"] = ["zebra-option-wrong", REFERENCES[2], "zebra-option-other"]
    # Turn 2 is predictive: it sees only what happens before frame 50 (given off the grid).
    chain["turns"][1]["cutoff_us"] = at_frame(50) + 7
    single = group(2, video.sha256, category="world_perception")
    single["turns"][0]["answer"] = SINGLE_REFERENCE
    records = sorted([chain, single], key=lambda r: r["uid"])
    group_set, _ = qa_import(text=jsonl(records), name="qa_run_set", author=admin_user)
    manifest = qa_manifest_freeze(
        group_set=group_set, name="qa_run_manifest", seed=7, params={"n_groups": 2},
        author=admin_user,
    )  # fmt: skip
    return {"manifest": manifest, "chain": chain, "single": single, "records": records}


def _start(qa_world, make_endpoint, packages, name="qa1", media="clip", **kw):
    endpoint = kw.pop("endpoint", None) or make_endpoint(frames=4)
    return qa_predict(
        name=name,
        manifest=qa_world["manifest"],
        endpoint=endpoint,
        package=packages("qa-prediction"),
        media=media,
        **kw,
    )


def _drive(run) -> Run:
    render_run_media(run)
    run_drive(run_id=run.pk)
    run.refresh_from_db()
    return run


def _items(run, uid) -> list[RunItem]:
    return list(run.items.filter(sample_id=uid).order_by("position"))


def _texts(body: dict) -> str:
    """Everything of a request body but the media bytes."""
    kept = []
    for message in body["messages"]:
        content = message["content"]
        if isinstance(content, list):
            content = [p for p in content if p.get("type") == "text"]
        kept.append({"role": message["role"], "content": content})
    return json.dumps({**body, "messages": kept}, ensure_ascii=False)


def _turn_of(body: dict) -> int:
    last = body["messages"][-1]["content"]
    text = last if isinstance(last, str) else last[0]["text"]
    return json.loads(text[text.index("{") : text.rindex("}") + 1])["turn"]


def test_dialogue_on_own_answers_cache_and_blinding(qa_world, make_endpoint, packages, stand_in):
    run = _drive(_start(qa_world, make_endpoint, packages))
    assert run.status == "finished"
    chain = _items(run, qa_world["chain"]["uid"])
    assert [i.outcome for i in chain] == [Outcome.OK] * 3
    assert [i.key.rsplit(":", 1)[1] for i in chain] == ["1", "2", "3"]
    own = [i.prediction["answer"] for i in chain]
    assert all(a.startswith("stand-in") for a in own[:2])
    # The multiple-choice turn: a letter shown, chosen by exact match.
    assert chain[2].prediction["chosen"] in {"A", "B", "C"}
    assert stand_in.stats()["requests"] == 4  # one call per turn

    bodies = stand_in.bodies(last=50)
    assert len(bodies) == 4
    third = next(b for b in bodies if _turn_of(b) == 3)
    roles = [m["role"] for m in third["messages"]]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    # The model's own replies, exactly as returned, never the references.
    assert third["messages"][2]["content"] == json.dumps({"answer": own[0]})
    assert third["messages"][4]["content"] == json.dumps({"answer": own[1]})
    # The clip opens the dialogue: four frames with the first question, none later.
    first = third["messages"][1]["content"]
    assert [p["type"] for p in first].count("image_url") == 4
    assert all(isinstance(m["content"], str) for m in third["messages"][2:])
    assert "options" in _texts(third) and REFERENCES[2] in _texts(third)

    # Blinding: nothing of the group but its questions (and a turn's options) reaches a model.
    secrets = [
        *REFERENCES[:2],
        SINGLE_REFERENCE,
        *DESCRIPTIONS,
        *(r["uid"] for r in qa_world["records"]),
        *(r["uid"].replace("-", "") for r in qa_world["records"]),
        "action_status",
        "world_perception",
        "audio_visual",
        "qa_run_set",
        "qa_run_manifest",
        "giraffe",
        "clip-1",
        "gen-2",
    ]
    for body in bodies:
        text = _texts(body)
        for secret in secrets:
            assert secret not in text, secret
        for word in ("chain", "node", "visual", "auditory", "structure", "category", "modality"):
            assert not re.search(rf"\b{word}\b", text, re.IGNORECASE), word
        # A multiple-choice turn never says which option is right.
        assert "reference" not in text.lower()

    # The same set again under another name: every turn from the cache, no call.
    again = _drive(_start(qa_world, make_endpoint, packages, name="qa2", endpoint=run.endpoint))
    assert stand_in.stats()["requests"] == 4
    assert again.items.filter(outcome=Outcome.OK, cached_from__isnull=False).count() == 4
    # Resuming the finished run asks nothing either.
    _drive(_start(qa_world, make_endpoint, packages, endpoint=run.endpoint))
    assert stand_in.stats()["requests"] == 4


def test_cache_key_holds_the_earlier_turns_texts(qa_world, make_endpoint, packages, stand_in):
    run = _drive(_start(qa_world, make_endpoint, packages, media="text_only"))
    chain = _items(run, qa_world["chain"]["uid"])
    assert run_progress(run)["outcomes"]["ok"] == 4
    assert all(i.media_id is None and i.interface == "text" for i in chain)
    # Another first answer makes turn 2 and 3 other requests: their keys change, so no cache.
    stand_in.rules({"contains": "Question 0 of group 1", "times": -1, "action": {
        "content": json.dumps({"answer": "a different first answer"})}})  # fmt: skip
    RunItem.objects.filter(cache_key=chain[0].cache_key).update(cache_key="stale")
    other = _drive(
        _start(qa_world, make_endpoint, packages, name="qa3", media="text_only",
               endpoint=run.endpoint)
    )  # fmt: skip
    redone = _items(other, qa_world["chain"]["uid"])
    assert redone[0].prediction["answer"] == "a different first answer"
    # Turn 1 sent the same request (its key is the same); turns 2 and 3 hold another earlier
    # answer, so their keys differ and they were asked, not taken from the cache.
    assert [i.cache_key == j.cache_key for i, j in zip(chain, redone, strict=True)] == [
        True,
        False,
        False,
    ]
    assert all(i.cached_from_id is None for i in redone)


def test_failure_ends_the_dialogue_and_resume_asks_again(
    qa_world, make_endpoint, packages, stand_in
):
    # Turn 2's request is the only one holding its question (turn 3 is never asked).
    stand_in.rules({"contains": "Question 1 of group 1", "times": -1, "action": {"status": 400}})
    run = _drive(_start(qa_world, make_endpoint, packages, media="text_only"))
    assert run.status == "finished"
    chain = _items(run, qa_world["chain"]["uid"])
    assert [i.state for i in chain] == [ItemState.DONE, ItemState.DONE, ItemState.NOT_ASKED]
    assert [i.outcome for i in chain] == [Outcome.OK, Outcome.API_ERROR, ""]
    assert chain[2].requests == 0 and chain[2].prediction is None
    assert "turn 2" in chain[2].error
    progress = run_progress(run)
    assert progress["outcomes"]["not_asked"] == 1 and progress["outcomes"]["pending"] == 0
    summary = qa_run_summary(run)
    assert summary["dialogues"] == {"answered": 1, "api_error": 1}
    assert summary["not_asked"] == 1 and summary["choice_answered"] == 0
    lines = [line for line in run_lines(run) if line["group"] == qa_world["chain"]["uid"]]
    assert [(x["turn"], x["state"], x["outcome"]) for x in lines] == [
        (1, "done", "ok"),
        (2, "done", "api_error"),
        (3, "not_asked", None),
    ]
    assert lines[2]["not_asked_because"] == chain[2].error and lines[2]["attempts"] == []
    assert lines[0]["format"] == "intent-studio.qa-turn/1" and "reference" not in lines[0]["asked"]
    assert all(_turn_of(b) != 3 for b in stand_in.bodies(last=50))
    calls = stand_in.stats()["requests"]

    # Resumed: turn 2 is asked again, turn 3 waits for it and is then asked; turn 1 is not.
    stand_in.rules()
    resumed = _drive(_start(qa_world, make_endpoint, packages, media="text_only",
                            endpoint=run.endpoint))  # fmt: skip
    chain = _items(resumed, qa_world["chain"]["uid"])
    assert [i.outcome for i in chain] == [Outcome.OK] * 3
    assert stand_in.stats()["requests"] == calls + 2


def test_a_rerun_takes_its_dialogues_from_the_cache_when_it_is_created(
    qa_world, make_endpoint, packages, stand_in
):
    # The first run: turn 2 of the chain fails, so the cache holds its turn 1 and the single.
    stand_in.rules({"contains": "Question 1 of group 1", "times": -1, "action": {"status": 400}})
    first = _drive(_start(qa_world, make_endpoint, packages, media="text_only"))
    stand_in.rules()
    calls = stand_in.stats()["requests"]
    second = _start(qa_world, make_endpoint, packages, name="qa-again", media="text_only",
                    endpoint=first.endpoint)  # fmt: skip
    # Before any driver: turn 1 and the single group are taken, turn 2 is pending, 3 waits.
    chain = _items(second, qa_world["chain"]["uid"])
    assert [i.state for i in chain] == [ItemState.DONE, ItemState.PENDING, ItemState.WAITING]
    assert chain[0].cached_from_id == _items(first, qa_world["chain"]["uid"])[0].pk
    (single,) = _items(second, qa_world["single"]["uid"])
    assert single.state == ItemState.DONE and single.cached_from_id is not None
    assert stand_in.stats()["requests"] == calls
    second = _drive(second)
    assert second.status == "finished" and stand_in.stats()["requests"] == calls + 2
    # A third run of the same set is finished as it is created: every turn of every dialogue
    # from the cache, the turns after the first keyed on the cached replies; no driver calls.
    third = _start(qa_world, make_endpoint, packages, name="qa-third", media="text_only",
                   endpoint=first.endpoint)  # fmt: skip
    assert third.status == "finished"
    assert third.items.filter(outcome=Outcome.OK, cached_from__isnull=False).count() == 4
    assert [i.cache_key for i in _items(third, qa_world["chain"]["uid"])] == [
        i.cache_key for i in _items(second, qa_world["chain"]["uid"])
    ]
    assert stand_in.stats()["requests"] == calls + 2


def test_bad_input_writes_nothing(qa_world, make_endpoint, packages, stand_in, frozen_release):
    from review.models import Manifest

    endpoint = make_endpoint()
    with pytest.raises(RunError, match="media"):
        _start(qa_world, make_endpoint, packages, media="sound", endpoint=endpoint)
    with pytest.raises(RunError, match="qa_prediction"):
        qa_predict(name="x", manifest=qa_world["manifest"], endpoint=endpoint,
                   package=packages("frames-prediction"), media="clip")  # fmt: skip
    step_manifest = Manifest.objects.create(
        name="not-qa", kind="audit", method="stratified", seed=1, release=frozen_release
    )
    with pytest.raises(RunError, match="not a frozen QA manifest"):
        qa_predict(name="x", manifest=step_manifest, endpoint=endpoint,
                   package=packages("qa-prediction"), media="clip")  # fmt: skip
    assert not Run.objects.exists()


def test_qa_judge_scores_the_open_ended_turns(qa_world, make_endpoint, packages, stand_in):
    from scoring.judges import judge_start

    run = _drive(_start(qa_world, make_endpoint, packages, media="text_only"))
    judge = judge_start(
        name="qa-judged",
        kind="qa",
        endpoint=make_endpoint(name="judge", model="stand-in-judge"),
        package=packages("qa-judge"),
        runs=[run],
    )
    run_drive(run_id=judge.pk)
    judgements = list(Judgement.objects.filter(run=judge).order_by("subject_key"))
    # Three open-ended turns (two of the chain, the single one); the multiple-choice turn is not.
    assert len(judgements) == 3
    assert all(j.outcome == "ok" and j.correct is not None for j in judgements)
    assert {j.reference["reference_answer"] for j in judgements} == {
        *REFERENCES[:2],
        SINGLE_REFERENCE,
    }


def test_admin_starts_a_qa_run_and_reads_its_turns(
    client, admin_user, annotator, qa_world, make_endpoint, packages, stand_in
):
    from django.urls import reverse

    endpoint = make_endpoint(frames=4)
    client.force_login(annotator)
    assert client.get(reverse("scoring:qa-run-start")).status_code == 404
    client.force_login(admin_user)
    listing = client.get(reverse("scoring:run-list")).content.decode()
    assert "Start a QA run" in listing and "qa_run_manifest" in listing
    form = {
        "name": "from-page",
        "manifest": qa_world["manifest"].pk,
        "media": "text_only",
        "endpoint": endpoint.pk,
        "package": packages("qa-prediction").pk,
    }
    refused = client.post(reverse("scoring:qa-run-start"), {**form, "media": "sound"})
    assert refused.status_code == 200 and not Run.objects.exists()
    stand_in.rules({"contains": "Question 1 of group 1", "times": -1, "action": {"status": 400}})
    response = client.post(reverse("scoring:qa-run-start"), form)
    run = Run.objects.get(name="from-page")
    assert response.status_code == 302 and response.url.endswith(f"/runs/{run.pk}/")
    _drive(run)
    page = client.get(reverse("scoring:run-detail", args=[run.pk])).content.decode()
    answer = _items(run, qa_world["chain"]["uid"])[0].prediction["answer"]
    assert answer in page and "Question 0 of group 1?" in page
    assert "not asked: turn 2 ended in API error" in page and "turn 3" in page
    assert "Judge this run" in page and "QA judge" in page


def test_qa_predict_command(qa_world, make_endpoint, packages, stand_in):
    from io import StringIO

    from django.core.management import CommandError, call_command

    make_endpoint(name="vlm")
    out = StringIO()
    args = ["qa_predict", "cmd", "--manifest", "qa_run_manifest", "--endpoint", "vlm"]
    args += ["--package", "qa-prediction", "--media", "text_only"]
    call_command(*args, stdout=out)
    assert "run cmd" in out.getvalue()
    run = Run.objects.get(name="cmd")
    assert run.items.count() == 4 and run.items.filter(state=ItemState.WAITING).count() == 2
    assert run.provenance["set"]["manifest_sha256"] == qa_world["manifest"].manifest_sha256
    assert run.provenance["package"]["name"] == "qa-prediction"
    run_drive(run_id=run.pk)
    out = StringIO()
    call_command("run_show", "cmd", "--json", stdout=out)
    shown = json.loads(out.getvalue())
    assert shown["outcomes"] == {
        "ok": 4, "parse_failure": 0, "refusal": 0, "api_error": 0, "pending": 0, "not_asked": 0,
    }  # fmt: skip
    assert shown["dialogues"]["dialogues"] == {"answered": 2}
    with pytest.raises(CommandError, match="no manifest"):
        call_command(*[a if a != "qa_run_manifest" else "nope" for a in args], stdout=out)


@pytest.mark.parametrize(
    ("reply", "chosen", "correct"),
    [("B", "B", True), (" zebra-option-wrong ", "A", False), ("b", None, False)],
)
def test_multiple_choice_is_exact_match_on_the_chosen_option(
    qa_world, make_endpoint, packages, stand_in, reply, chosen, correct
):
    stand_in.rules({"contains": "Question 2 of group 1", "times": -1,
                    "action": {"content": json.dumps({"answer": reply})}})  # fmt: skip
    run = _drive(_start(qa_world, make_endpoint, packages, media="text_only"))
    (choice,) = [r for r in turn_rows(run) if r["kind"] == "choice"]
    assert (choice["outcome"], choice["chosen"], choice["correct"]) == ("ok", chosen, correct)
    summary = qa_run_summary(run)
    assert summary["dialogues"] == {"answered": 2}
    assert (summary["choice_answered"], summary["choice_correct"]) == (1, int(correct))
    assert summary["open_answered"] == 3


def test_a_predictive_turn_sees_only_media_before_its_cutoff(
    qa_world, make_endpoint, packages, stand_in
):
    from media.models import RenderedMedia

    run = _drive(_start(qa_world, make_endpoint, packages))
    first, second, third = _items(run, qa_world["chain"]["uid"])
    cutoff = at_frame(50)  # snapped to the frame grid on import
    assert (first.cutoff_us, second.cutoff_us, third.cutoff_us) == (None, cutoff, None)
    assert first.media_id == third.media_id != second.media_id
    video = second.media.video
    times = video.frame_times_us()
    for item in (first, second):
        medium = RenderedMedia.objects.get(pk=item.media_id)
        assert medium.status == "ready" and len(medium.spec["frames"]) == 4
    shown = [int(times[i]) for i in second.media.spec["frames"]]
    assert max(shown) < cutoff <= max(int(times[i]) for i in first.media.spec["frames"])
    assert second.media_sha256 != first.media_sha256
    lines = [x for x in run_lines(run) if x["group"] == qa_world["chain"]["uid"]]
    assert [x["cutoff_us"] for x in lines] == [None, cutoff, None]

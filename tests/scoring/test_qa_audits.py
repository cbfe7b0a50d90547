"""The shortcut and modality audit end to end: two stand-in models answer six groups under the
four media conditions (real QA runs on a source with sound, real QA judge runs), their text-only
and single-modality answers scripted right for known groups; the audit flags exactly those
groups, refuses what it cannot compare, and its filter list round-trips into a QA review
campaign over exactly the flagged groups."""

from __future__ import annotations

import io
import json
import shutil

import pytest
from django.core.management import CommandError, call_command

from media.models import Scene
from media.services import video_import
from review.qa.imports import qa_import
from review.qa.sampling import qa_manifest_freeze, qa_manifest_uids
from scoring.judges import judge_start
from scoring.models import QaAudit, Run
from scoring.qa.audits import FLAG_FORMAT, filter_bytes
from scoring.qa.runs import qa_predict
from scoring.runs import run_drive
from tests.review.qa.helpers import group, group_uid, jsonl
from tests.scoring.conftest import render_run_media

pytestmark = pytest.mark.django_db

MODELS = {"a": "stand-in-vision", "b": "stand-in-vision-b"}
MODALITIES = {"full": ["picture", "sound"], "visual_only": ["picture"],
              "audio_only": ["sound"], "text_only": []}  # fmt: skip
# group number -> (modality label, turns)
GROUPS = {1: ("visual", 1), 2: ("audio_visual", 1), 3: ("auditory", 1), 4: ("visual", 1),
          5: ("audio_visual", 2), 6: ("visual", 1)}  # fmt: skip
# (model, condition, group) answered with the reference (right); ("error", ...) a failed call.
RIGHT = [
    ("a", "text_only", 1), ("b", "text_only", 1),  # shortcut, 2 of 2
    ("a", "visual_only", 2), ("b", "visual_only", 2),  # redundant, 2 of 2
    ("a", "visual_only", 3),  # auditory group right from the picture: 1 of 2, no flag
    ("a", "audio_only", 4), ("b", "audio_only", 4),  # mislabelled, 2 of 2
    ("a", "text_only", 5),  # turn 1 only: the group is not right
    ("a", "text_only", 6),  # shortcut: b's dialogue failed, so a alone votes (1 of 1)
]  # fmt: skip
FAILED = [("b", "text_only", 5), ("b", "text_only", 6)]
EXPECTED = {1: ["language_shortcut"], 2: ["redundant_modality"], 4: ["mislabelled_modality"],
            6: ["language_shortcut"]}  # fmt: skip


def _reference(n: int, t: int) -> str:
    return f"okapi{n} crosses river{t} slowly"


@pytest.fixture(scope="module")
def sound_source(tmp_path_factory):
    from tests.synth_cache import synth_video

    folder = tmp_path_factory.mktemp("audit-source")
    return synth_video(folder / "audit-source.mp4", seconds=5, fps=30, audio=True).path


@pytest.fixture
def audit_world(db, sound_source, admin_user, tmp_path, make_endpoint, packages, stand_in):
    copy = tmp_path / "audit-source.mp4"
    shutil.copyfile(sound_source, copy)
    scene = Scene.objects.get_or_create(
        slug="indoor/tea_room", defaults={"name": "Tea Room", "setting": "indoor"}
    )[0]
    video = video_import(path=copy, scene=scene, title="audit-source.mp4", user=admin_user)
    records = []
    for n, (modality, turns) in GROUPS.items():
        record = group(n, video.sha256, modality=modality, turns=turns,
                       structure="chain" if turns > 1 else "node")  # fmt: skip
        for t, turn in enumerate(record["turns"]):
            turn["answer"] = _reference(n, t)
        records.append(record)
    records.sort(key=lambda r: r["uid"])
    group_set, _ = qa_import(text=jsonl(records), name="audit_set", author=admin_user)
    manifest = qa_manifest_freeze(group_set=group_set, name="audit_manifest", seed=5,
                                  params={"n_groups": len(records)}, author=admin_user)  # fmt: skip
    # Turn 2 of group 5 answered wrong by both models (the judge's requests are not scripted);
    # first, as its request holds turn 1's question too.
    rules = [
        {"model": model, "contains": "Question 1 of group 5", "times": -1,
         "action": {"content": json.dumps({"answer": "a wrong second answer"})}}
        for model in MODELS.values()
    ]  # fmt: skip
    for who, condition, n in FAILED:
        rules.append({"model": MODELS[who], "contains": f"Question 0 of group {n}",
                      "modalities": MODALITIES[condition], "times": -1,
                      "action": {"status": 400}})  # fmt: skip
    for who, condition, n in RIGHT:
        rules.append({"model": MODELS[who], "contains": f"Question 0 of group {n}",
                      "modalities": MODALITIES[condition], "times": -1,
                      "action": {"content": json.dumps({"answer": _reference(n, 0)})}})  # fmt: skip
    stand_in.rules(*rules)
    endpoints = {
        who: make_endpoint(name=f"model-{who}", model=model, frames=4)
        for who, model in MODELS.items()
    }
    runs = {}
    for who, endpoint in endpoints.items():
        for condition in MODALITIES:
            run = qa_predict(name=f"{who}-{condition}", manifest=manifest, endpoint=endpoint,
                             package=packages("qa-prediction"), media=condition)  # fmt: skip
            render_run_media(run)
            run_drive(run_id=run.pk)
            run.refresh_from_db()
            assert run.status == "finished"
            runs[(who, condition)] = run
    judge_endpoint = make_endpoint(name="judge", model="stand-in-judge")
    for (who, condition), run in runs.items():
        # One judge run per QA run (a driver pass stays under 20 calls, so the test's
        # transaction keeps its connection).
        judge = judge_start(name=f"judge-{who}-{condition}", kind="qa", endpoint=judge_endpoint,
                            package=packages("qa-judge"), runs=[run])  # fmt: skip
        run_drive(run_id=judge.pk)
    return {"manifest": manifest, "runs": runs, "group_set": group_set,
            "video": video, "records": records}  # fmt: skip


def _args(runs, name="audit1", **extra):
    args = ["qa_audit", name]
    for (_who, condition), run in sorted(runs.items()):
        args += [f"--{condition.replace('_', '-')}", run.name]
    for key, value in extra.items():
        args += [f"--{key.replace('_', '-')}", value]
    return args


def test_the_audit_flags_exactly_the_scripted_groups_and_round_trips(
    audit_world, auditor, tmp_path
):
    out = io.StringIO()
    call_command(*_args(audit_world["runs"]), stdout=out)
    assert "6 groups, 4 flagged" in out.getvalue()
    audit = QaAudit.objects.get(name="audit1")
    flags = {row["group"]: row["flags"] for row in audit.result["groups"]}
    assert flags == {group_uid(n): EXPECTED.get(n, []) for n in GROUPS}
    assert audit.result["counts"] == {"language_shortcut": 2, "redundant_modality": 1,
                                      "mislabelled_modality": 1, "any": 4}  # fmt: skip
    by_group = {row["group"]: row for row in audit.result["groups"]}
    six = next(v for v in by_group[group_uid(6)]["votes"] if v["flag"] == "language_shortcut")
    assert six == {"flag": "language_shortcut", "conditions": ["text_only"],
                   "voters": ["model-a"], "correct": ["model-a"]}  # fmt: skip
    assert by_group[group_uid(6)]["verdicts"]["model-b"]["text_only"] == "error"
    three = by_group[group_uid(3)]["votes"][-1]
    assert three["voters"] == ["model-a", "model-b"] and three["correct"] == ["model-a"]
    assert by_group[group_uid(5)]["verdicts"]["model-a"]["text_only"] == "incorrect"
    # The runs it read, with the judge run, their hashes and the manifest's.
    assert len(audit.inputs) == 8
    assert {i["judge_run"] for i in audit.inputs} == {
        f"judge-{w}-{c}" for w, c in audit_world["runs"]
    }
    assert audit.result["manifest"]["manifest_sha256"] == audit_world["manifest"].manifest_sha256
    assert audit.runs.count() == 16

    # The filter list: one canonical line per flagged group, its hash the stored one.
    target = io.StringIO()
    call_command("qa_audit", "audit1", "--export", "-", stdout=target)
    data = target.getvalue().encode()
    assert data == filter_bytes(audit)
    import hashlib

    assert hashlib.sha256(data).hexdigest() == audit.filter_sha256
    out = io.StringIO()
    call_command("qa_audit", "audit1", "--export", str(tmp_path / "flags.jsonl"), stdout=out)
    assert (tmp_path / "flags.jsonl").read_bytes() == data and "4 flagged" in out.getvalue()
    with pytest.raises(CommandError, match="cannot write"):  # never over an existing file
        call_command("qa_audit", "audit1", "--export", str(tmp_path / "flags.jsonl"))
    lines = [json.loads(line) for line in data.decode().splitlines()]

    assert [x["group"] for x in lines] == sorted(group_uid(n) for n in EXPECTED)
    assert all(x["format"] == FLAG_FORMAT and x["audit"] == "audit1" for x in lines)
    assert {x["group"]: x["flags"] for x in lines} == {group_uid(n): f for n, f in EXPECTED.items()}

    # Round trip: a QA review campaign over exactly the flagged groups.
    out = io.StringIO()
    call_command("qa_audit", "audit1", "--campaign", "audit1-review", "--people",
                 auditor.username, "--seed", "3", stdout=out)  # fmt: skip
    from review.campaigns.models import Campaign

    campaign = Campaign.objects.get(name="audit1-review")
    assert campaign.kind == "qa_review"
    assert qa_manifest_uids(campaign.manifest) == sorted(group_uid(n) for n in EXPECTED)
    design = json.loads(campaign.manifest.manifest_text)["design"]
    assert design["list_sha256"] == audit.filter_sha256
    assert campaign.items.count() == len(EXPECTED)
    # The same list again makes nothing new: the names are taken.
    with pytest.raises(CommandError, match="already exists"):
        call_command("qa_audit", "audit1", "--campaign", "audit1-review-2", "--people",
                     auditor.username, stdout=io.StringIO())  # fmt: skip
    assert Campaign.objects.filter(kind="qa_review").count() == 1

    # Picked by manifest and endpoints instead: the same runs, the same flags.
    call_command("qa_audit", "audit2", "--manifest", "audit_manifest", "--endpoint", "model-a",
                 "--endpoint", "model-b", stdout=io.StringIO())  # fmt: skip
    second = QaAudit.objects.get(name="audit2")
    assert {r["group"]: r["flags"] for r in second.result["groups"]} == flags
    assert second.filter_sha256 != audit.filter_sha256  # its own name is on every line


def test_the_audit_refuses_what_it_cannot_compare(audit_world, admin_user, make_endpoint, packages):
    runs = audit_world["runs"]
    refusals = [
        # A text-only run given as a picture-only one.
        (["qa_audit", "x", "--visual-only", runs[("a", "text_only")].name], "media text_only"),
        # Two runs of one model under one condition.
        (["qa_audit", "x", "--text-only", runs[("a", "text_only")].name,
          "--text-only", runs[("a", "text_only")].name], "two text_only runs"),
        (["qa_audit", "x", "--full", runs[("a", "full")].name], "needs text-only"),
        (["qa_audit", "x", "--text-only", "judge-a-full"], "not a QA run"),
        (["qa_audit", "x", "--text-only", runs[("a", "text_only")].name,
          "--judge", runs[("b", "full")].name], "not a QA judge run"),
        (["qa_audit", "x"], "no audit named x"),
        (["qa_audit", "x", "--manifest", "audit_manifest"], "go together"),
    ]  # fmt: skip
    # A run of another manifest.
    other = qa_manifest_freeze(group_set=audit_world["group_set"], name="audit_manifest_2",
                               seed=9, params={"n_groups": 2}, author=admin_user)  # fmt: skip
    foreign = qa_predict(name="foreign", manifest=other, endpoint=runs[("a", "full")].endpoint,
                         package=packages("qa-prediction"), media="text_only")  # fmt: skip
    refusals.append(
        (["qa_audit", "x", "--text-only", runs[("a", "text_only")].name,
          "--visual-only", "foreign"], "one QA manifest")
    )  # fmt: skip
    for args, message in refusals:
        with pytest.raises(CommandError, match=message):
            call_command(*args, stdout=io.StringIO())
    # A run still going (a new model's, nothing cached for it, not driven yet), then done but
    # judged by nobody.
    unjudged = qa_predict(name="unjudged", manifest=audit_world["manifest"],
                          endpoint=make_endpoint(name="model-c", model="stand-in-vision-c"),
                          package=packages("qa-prediction"), media="text_only")  # fmt: skip
    refusals = [(["qa_audit", "x", "--text-only", "unjudged"], "audit finished runs only")]
    for args, message in refusals:
        with pytest.raises(CommandError, match=message):
            call_command(*args, stdout=io.StringIO())
    run_drive(run_id=unjudged.pk)
    refusals = [(["qa_audit", "x", "--text-only", "unjudged"], "no finished QA judge run")]
    for args, message in refusals:
        with pytest.raises(CommandError, match=message):
            call_command(*args, stdout=io.StringIO())
    assert not QaAudit.objects.exists()
    assert foreign.pk and Run.objects.filter(name="foreign").exists()


def test_the_audit_page_shows_flags_and_opens_the_campaign(
    audit_world, client, admin_user, annotator, auditor
):
    from django.urls import reverse

    from review.campaigns.models import Campaign

    call_command(*_args(audit_world["runs"]), stdout=io.StringIO())
    audit = QaAudit.objects.get(name="audit1")
    page_url = reverse("scoring:qa-audit", args=[audit.pk])
    for url in (reverse("scoring:qa-audits"), page_url, page_url + "?format=jsonl",
                reverse("scoring:qa-audit-campaign", args=[audit.pk])):  # fmt: skip
        client.force_login(annotator)
        assert (client.post(url) if url.endswith("campaign/") else client.get(url)).status_code \
            == 404  # fmt: skip
    client.force_login(admin_user)
    listing = client.get(reverse("scoring:qa-audits")).content.decode()
    assert "audit1" in listing and "4 of 6 groups flagged" in listing
    page = client.get(page_url).content.decode()
    assert "Language shortcut" in page and "Redundant modality" in page
    assert "Mislabelled modality" in page and ">language_shortcut<" not in page
    assert page.count("data-group-row") == 4  # the flagged groups
    assert "right for 1 of 1 model: model-a" in page
    # Every model's answer under every condition, in words: b's text-only dialogue of group 6
    # failed; a's was right.
    assert "Text only failed" in page and "<strong>Text only right</strong>" in page
    assert "Picture and sound wrong" in page
    every = client.get(page_url + "?show=all").content.decode()
    assert every.count("data-group-row") == 6
    download = client.get(page_url + "?format=jsonl")
    assert download.content == filter_bytes(audit)
    assert "attachment" in download["Content-Disposition"]
    # The QA run pages link to the audit.
    run = audit_world["runs"][("a", "text_only")]
    assert page_url in client.get(reverse("scoring:run-detail", args=[run.pk])).content.decode()
    # The button: a taken name is refused and writes nothing; then the campaign opens.
    form = {"campaign": "page-review", "manifest": "audit_manifest", "people": [auditor.pk],
            "seed": 0}  # fmt: skip
    refused = client.post(reverse("scoring:qa-audit-campaign", args=[audit.pk]), form)
    assert refused.status_code == 400 and "already exists" in refused.content.decode()
    assert not Campaign.objects.filter(name="page-review").exists()
    form["manifest"] = "page-flags"
    done = client.post(reverse("scoring:qa-audit-campaign", args=[audit.pk]), form)
    campaign = Campaign.objects.get(name="page-review")
    assert done.status_code == 302 and done.url == reverse("scoring:qa-report", args=[campaign.pk])
    assert qa_manifest_uids(campaign.manifest) == sorted(group_uid(n) for n in EXPECTED)

"""import_qa / export: all or nothing with line numbers, intervals inside the video and on its
frames, byte-identical round trip, frozen sets."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from annotation.models.releases import FrozenError
from review.qa.imports import QaImportError, qa_export_bytes, qa_import
from review.qa.models import QaEvidence, QaGroup, QaGroupSet, QaTurn
from tests.review.qa.helpers import at_frame, group, group_uid, jsonl

pytestmark = pytest.mark.django_db


@pytest.fixture
def video(make_video):
    return make_video(seconds=20)


def _nothing_written():
    assert not QaGroupSet.objects.exists()
    assert not QaGroup.objects.exists()
    assert not QaTurn.objects.exists()


def test_a_valid_file_imports_as_a_frozen_set(video, admin_user):
    records = [group(1, video.sha256), group(2, video.sha256, structure="chain", turns=3)]
    group_set, moved = qa_import(text=jsonl(records), name="qa_v1", author=admin_user)
    assert moved == 0
    assert group_set.is_frozen and group_set.sample_count == 2
    chain = QaGroup.objects.get(uid=group_uid(2))
    assert chain.turn_count == 3 and chain.turns.count() == 3
    assert chain.span_start_us == at_frame(30) and chain.span_end_us == at_frame(105)
    assert len(group_set.manifest_sha256) == 64


def test_round_trip_is_byte_identical(video, admin_user):
    records = [
        group(3, video.sha256, structure="loop", turns=2, modality="audio_visual"),
        group(1, video.sha256),
        group(2, video.sha256, structure="edge", category="world_perception"),
    ]
    records[1]["turns"][0]["options"] = ["Answer 0", "Another answer", "A third"]
    records[0]["turns"][1]["question"] = "Naïve <b>question</b> — «quoted» 🥄?"
    text = jsonl(sorted(records, key=lambda r: r["uid"]))
    group_set, _ = qa_import(text=text, name="qa_v1", author=admin_user)
    exported = qa_export_bytes(group_set=group_set)
    assert exported == text.encode("utf-8")
    # and again through a second import of the export
    again, _ = qa_import(text=exported.decode(), name="qa_v1_again", author=admin_user)
    assert qa_export_bytes(group_set=again) == exported
    assert again.records_sha256 == group_set.records_sha256


def test_a_bad_line_writes_nothing_and_is_named(video, admin_user):
    bad = group(2, video.sha256)
    bad["turns"][0]["answer"] = ""
    text = jsonl([group(1, video.sha256), bad, group(3, video.sha256)])
    with pytest.raises(QaImportError) as caught:
        qa_import(text=text, name="qa_v1", author=admin_user)
    assert any(p.startswith("line 2: turns[0].answer") for p in caught.value.messages())
    assert all(p.startswith("line 2") for p in caught.value.messages())
    _nothing_written()


def test_an_interval_outside_the_video_is_refused(video, admin_user):
    outside = group(1, video.sha256)
    outside["turns"][0]["evidence"][0]["end_us"] = video.duration_us + 1
    with pytest.raises(QaImportError) as caught:
        qa_import(text=jsonl([outside]), name="qa_v1", author=admin_user)
    assert "after the end of the video" in str(caught.value)
    assert "line 1" in str(caught.value)
    _nothing_written()


def test_intervals_are_snapped_to_frames(video, admin_user):
    off = group(1, video.sha256)
    off["turns"][0]["evidence"][0]["start_us"] = at_frame(30) + 7_000  # nearer frame 30
    off["turns"][0]["evidence"][0]["end_us"] = at_frame(45) - 5_000  # nearer frame 45
    _, moved = qa_import(text=jsonl([off]), name="qa_v1", author=admin_user)
    assert moved == 2
    ev = QaEvidence.objects.get()
    assert (ev.start_us, ev.end_us) == (at_frame(30), at_frame(45))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.update(structure="chain"), "a chain group needs at least 2 turns"),
        (lambda r: r.update(structure="loop"), "a loop group needs at least 2 turns"),
        (
            lambda r: r["turns"][0].update(options=["Not it", "Neither"]),
            "options must contain the answer",
        ),
        (lambda r: r.update(turn_count=2), "turn_count is 2 but there are 1 turns"),
        (lambda r: r.update(uid="NOT-A-UUID"), "uid must be a lower-case hyphenated UUID"),
        (lambda r: r.update(video_sha256="0" * 64), "is not a source video"),
        (lambda r: r.update(modality="auditory"), "a auditory group needs auditory evidence"),
        (lambda r: r.update(extra=1), "unknown field(s) extra"),
        (lambda r: r["turns"][0].update(depends_on=[0]), "depends_on must list earlier turns"),
    ],
)
def test_schema_rules(video, admin_user, change, message):
    record = group(1, video.sha256)
    change(record)
    with pytest.raises(QaImportError) as caught:
        qa_import(text=jsonl([record]), name="qa_v1", author=admin_user)
    assert message in str(caught.value)
    _nothing_written()


def test_chain_with_linked_episodes_needs_no_second_turn(video, admin_user):
    record = group(1, video.sha256, structure="chain", episodes=["ep-1", "ep-2"])
    group_set, _ = qa_import(text=jsonl([record]), name="qa_v1", author=admin_user)
    assert group_set.sample_count == 1


def test_multi_turn_last_turn_must_depend(video, admin_user):
    record = group(1, video.sha256, structure="chain", turns=2)
    record["turns"][1]["depends_on"] = []
    with pytest.raises(QaImportError, match="last turn of a multi-turn group"):
        qa_import(text=jsonl([record]), name="qa_v1", author=admin_user)


def test_duplicate_uid_and_not_json_are_named(video, admin_user):
    text = jsonl([group(1, video.sha256), group(1, video.sha256)]) + "{not json\n"
    with pytest.raises(QaImportError) as caught:
        qa_import(text=text, name="qa_v1", author=admin_user)
    problems = caught.value.messages()
    assert any("line 2" in p and "already on line 1" in p for p in problems)
    assert any(p.startswith("line 3: not JSON") for p in problems)
    _nothing_written()


def test_a_frozen_set_never_changes(video, admin_user):
    qa_import(text=jsonl([group(1, video.sha256)]), name="qa_v1", author=admin_user)
    g = QaGroup.objects.get()
    g.category = "changed"
    with pytest.raises(FrozenError):
        g.save()
    turn = QaTurn.objects.get()
    turn.answer = "changed"
    with pytest.raises(FrozenError):
        turn.save()
    with pytest.raises(FrozenError):
        QaEvidence.objects.all().update(description="changed")
    with pytest.raises(FrozenError):
        QaGroup.objects.all().delete()


def test_commands_import_and_export(video, admin_user, tmp_path):
    source = tmp_path / "groups.jsonl"
    records = sorted([group(1, video.sha256), group(2, video.sha256)], key=lambda r: r["uid"])
    source.write_text(jsonl(records), encoding="utf-8")
    out = io.StringIO()
    call_command("import_qa", str(source), "--name", "qa_v1", stdout=out)
    assert "Imported 2 QA groups" in out.getvalue()
    target = tmp_path / "out.jsonl"
    call_command("export_qa", "qa_v1", str(target), stdout=io.StringIO())
    assert target.read_bytes() == source.read_bytes()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("[]\n", encoding="utf-8")
    with pytest.raises(CommandError, match="line 1"):
        call_command("import_qa", str(bad), "--name", "qa_v2", stdout=io.StringIO())
    assert QaGroupSet.objects.count() == 1


def test_a_turn_may_carry_a_decision_cutoff(db, admin_user, tmp_path):
    """qa-group/2: an optional cutoff_us per turn, snapped to a frame, after the group's first
    evidence; a qa-group/1 line (no cutoff) imports and exports as before."""
    from media.models import Scene
    from media.services import video_import
    from review.qa.schema import RECORD_FORMAT
    from tests.review.qa.world import synth_qa_source

    scene = Scene.objects.get_or_create(
        slug="indoor/tea_room", defaults={"name": "Tea Room", "setting": "indoor"}
    )[0]
    video = video_import(path=synth_qa_source(tmp_path), scene=scene, user=admin_user)
    predictive = group(1, video.sha256, turns=2)
    predictive["turns"][1]["cutoff_us"] = at_frame(45) + 3
    plain = group(2, video.sha256)
    group_set, _ = qa_import(text=jsonl([predictive, plain]), name="cut_v1", author=admin_user)
    turn = QaTurn.objects.get(group__uid=predictive["uid"], position=1)
    assert turn.cutoff_us == at_frame(45)
    exported = qa_export_bytes(group_set=group_set).decode().splitlines()
    records = {json.loads(line)["uid"]: json.loads(line) for line in exported}
    assert records[predictive["uid"]]["turns"][1]["cutoff_us"] == at_frame(45)
    assert "cutoff_us" not in records[predictive["uid"]]["turns"][0]
    assert jsonl([plain]).strip() in exported  # a group without a cutoff: its old bytes
    assert json.loads(group_set.manifest_text)["record_format"] == RECORD_FORMAT == "qa-group/2"
    for bad, problem in [
        (at_frame(10), "after the group's first evidence starts"),
        (10**12, "inside the video"),
        ("soon", "integer of microseconds"),
    ]:
        broken = group(3, video.sha256, turns=2)
        broken["turns"][1]["cutoff_us"] = bad
        with pytest.raises(Exception, match=problem):
            qa_import(text=jsonl([broken]), name=f"bad_{problem[:3]}", author=admin_user)

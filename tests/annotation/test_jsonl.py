"""import_steps / export_steps: one step per line, all or nothing."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from annotation.models import MicroStep, StepRevision
from annotation.services import step_create

S = 1_000_000


def _line(video, **fields):
    data = {
        "video_sha256": video.sha256,
        "start_us": 0,
        "cutoff_us": S,
        "outcome_us": S,
        "end_us": 2 * S,
        "local_intent": "grip the lid",
        "procedural_intent": "to open it",
        "next_step": "twist",
        "plausible_next_steps": ["tap it", "run it under water"],
    }
    data.update(fields)
    return json.dumps(data)


def _write(tmp_path, lines):
    path = tmp_path / "steps.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_import_creates_steps_with_import_revisions(make_video, annotator, tmp_path):
    video = make_video()
    path = _write(
        tmp_path,
        [
            _line(video),
            _line(video, start_us=3 * S, cutoff_us=4 * S, outcome_us=4 * S, end_us=5 * S),
        ],
    )
    call_command("import_steps", str(path), "--author", annotator.username, stdout=io.StringIO())
    steps = list(MicroStep.objects.order_by("start_us"))
    assert [s.position for s in steps] == [0, 1]
    assert steps[0].plausible_next_steps == ["tap it", "run it under water"]
    assert set(StepRevision.objects.values_list("action", flat=True)) == {"import"}
    assert steps[0].created_by == annotator


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("{not json", "line 2: not JSON"),
        ('["a list"]', "line 2: not a JSON object"),
        ("BAD_TIME", "line 2: start_us: Input should be a valid integer"),
        ("UNKNOWN_FIELD", "line 2: colour: Extra inputs are not permitted"),
        ("NO_VIDEO", "line 2: no video with SHA-256"),
        ("OVERLAP", "line 2: start_us: Overlaps step 1"),
        ("TOO_LONG", "line 2: end_us: A micro-step lasts at most 10 seconds."),
    ],
)
def test_one_bad_line_is_reported_by_number_and_nothing_is_written(
    make_video, tmp_path, bad, message
):
    video = make_video()
    replacements = {
        "BAD_TIME": _line(video, start_us="soon"),
        "UNKNOWN_FIELD": _line(video, colour="red"),
        "NO_VIDEO": _line(video, video_sha256="0" * 64),
        "OVERLAP": _line(video, start_us=S // 2, cutoff_us=S, outcome_us=S, end_us=S * 2),
        "TOO_LONG": _line(video, start_us=3 * S, cutoff_us=4 * S, outcome_us=4 * S, end_us=14 * S),
    }
    good = _line(video)
    third = _line(video, start_us=20 * S, cutoff_us=21 * S, outcome_us=21 * S, end_us=22 * S)
    path = _write(tmp_path, [good, replacements.get(bad, bad), third])
    err = io.StringIO()
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command("import_steps", str(path), stderr=err)
    assert message in err.getvalue()
    assert MicroStep.objects.count() == 0
    assert StepRevision.objects.count() == 0


def test_import_refuses_a_uid_that_exists(make_video, annotator, tmp_path):
    video = make_video()
    step = step_create(
        video=video, author=annotator, start_us=0, cutoff_us=S, outcome_us=S, end_us=2 * S
    )
    path = _write(
        tmp_path,
        [
            _line(
                video,
                uid=str(step.uid),
                start_us=5 * S,
                cutoff_us=6 * S,
                outcome_us=6 * S,
                end_us=7 * S,
            )
        ],
    )
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_steps", str(path), stderr=err)
    assert "already exists" in err.getvalue()
    assert MicroStep.objects.count() == 1


def test_export_then_import_round_trips_every_field(make_video, annotator, tmp_path):
    video = make_video()
    first = step_create(
        video=video,
        author=annotator,
        start_us=0,
        cutoff_us=S,
        outcome_us=S,
        end_us=2 * S,
        local_intent="a",
        plausible_next_steps=["x", "y"],
    )
    step_create(
        video=video,
        author=annotator,
        start_us=2 * S,
        cutoff_us=3 * S,
        outcome_us=3 * S,
        end_us=4 * S,
        next_step="b",
    )
    out = tmp_path / "out.jsonl"
    call_command("export_steps", "-o", str(out), stderr=io.StringIO())
    exported = out.read_text(encoding="utf-8").splitlines()
    assert len(exported) == 2 and json.loads(exported[0])["uid"] == str(first.uid)

    before = [s.snapshot() | {"uid": s.uid} for s in MicroStep.objects.order_by("start_us")]
    # Import into a clean slate: the same rows come back (rows are never deleted, so retag uids).
    MicroStep.objects.update(status="retracted")
    fresh = [json.loads(line) | {"uid": None} for line in exported]
    path = _write(tmp_path, [json.dumps(item) for item in fresh])
    call_command("import_steps", str(path), stdout=io.StringIO())
    after = [s.snapshot() for s in MicroStep.objects.filter(status="active").order_by("start_us")]
    assert after == [{k: v for k, v in b.items() if k != "uid"} for b in before]


def test_import_reports_an_unreadable_file(db, tmp_path):
    with pytest.raises(CommandError, match="cannot read"):
        call_command("import_steps", str(tmp_path / "missing.jsonl"))
    binary = tmp_path / "video.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    err = io.StringIO()
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command("import_steps", str(binary), stderr=err)
    assert "line 1: not UTF-8 (byte 0xff at byte 1)" in err.getvalue()

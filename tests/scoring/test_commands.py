"""The run commands: predict (the same command again resumes), run_show --json, run_export,
judge, run_cancel, package_add; clear errors that write nothing."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from scoring.models import PromptPackage, Run
from scoring.packages import BUILTIN_DIR
from scoring.runs import run_drive

pytestmark = pytest.mark.django_db


def _call(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_predict_show_export_and_judge(frozen_release, make_endpoint, packages, stand_in, tmp_path):
    make_endpoint()
    args = (
        "predict",
        "cmd",
        "--release",
        "r1",
        "--condition",
        "prompt_only",
        "--endpoint",
        "stand-in-vlm",
        "--package",
        "frames-prediction",
    )
    assert "run_show cmd" in _call(*args)
    run = Run.objects.get(name="cmd")
    run_drive(run_id=run.pk)
    shown = json.loads(_call("run_show", "cmd", "--json"))
    assert shown["items"] == 3
    assert shown["outcomes"] == {
        "ok": 3,
        "parse_failure": 0,
        "refusal": 0,
        "api_error": 0,
        "pending": 0,
    }
    assert shown["requests"] == 3
    _call(*args)  # resumes: nothing to do
    assert json.loads(_call("run_show", "cmd", "--json"))["requests"] == 3
    _call("run_export", "cmd", "-o", str(tmp_path / "out.jsonl"))
    lines = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert len(lines) == 3
    first = lines[0]
    for field in (
        "sample",
        "condition",
        "outcome",
        "prediction",
        "raw_response",
        "media_sha256",
        "package_sha256",
        "requested_model",
        "returned_model",
        "attempts",
    ):
        assert field in first, field
    assert set(first["attempts"][0]) == {"started", "status", "latency_ms", "error", "tokens"}
    assert first["requested_model"] == "stand-in-vision"
    assert first["returned_model"] == "stand-in-vision+stand-in-build-1"
    _call(
        "judge",
        "cj",
        "--run",
        "cmd",
        "--kind",
        "reference",
        "--endpoint",
        "stand-in-vlm",
        "--package",
        "reference-judge",
        "--unit",
        "step",
    )
    judge = Run.objects.get(name="cj")
    run_drive(run_id=judge.pk)
    shown = json.loads(_call("run_show", "cj", "--json"))
    assert shown["scores"]["steps"] == 3 and shown["outcomes"]["ok"] == 3


def test_predict_refuses_what_it_cannot_do(frozen_release, make_endpoint, packages):
    make_endpoint()
    with pytest.raises(CommandError, match="no frozen manifest"):
        _call(
            "predict",
            "x",
            "--manifest",
            "nope",
            "--condition",
            "official",
            "--endpoint",
            "stand-in-vlm",
            "--package",
            "frames-prediction",
        )
    with pytest.raises(CommandError, match="is for reference_judge"):
        _call(
            "predict",
            "x",
            "--release",
            "r1",
            "--condition",
            "official",
            "--endpoint",
            "stand-in-vlm",
            "--package",
            "reference-judge",
        )
    with pytest.raises(CommandError, match="no prompt package"):
        _call(
            "predict",
            "x",
            "--release",
            "r1",
            "--condition",
            "official",
            "--endpoint",
            "stand-in-vlm",
            "--package",
            "nope",
        )
    assert not Run.objects.exists()


def test_a_resumed_name_with_other_parameters_is_refused(frozen_release, make_endpoint, packages):
    make_endpoint()
    _call(
        "predict",
        "x",
        "--release",
        "r1",
        "--condition",
        "prompt_only",
        "--endpoint",
        "stand-in-vlm",
        "--package",
        "frames-prediction",
    )
    with pytest.raises(CommandError, match="other parameters"):
        _call(
            "predict",
            "x",
            "--release",
            "r1",
            "--condition",
            "scene_only",
            "--endpoint",
            "stand-in-vlm",
            "--package",
            "frames-prediction",
        )


def test_package_add_registers_versions_and_resolves_by_hash(db, tmp_path):
    raw = json.loads((BUILTIN_DIR / "qa-judge.json").read_text())
    raw["name"] = "our-qa"
    path = tmp_path / "p.json"
    path.write_text(json.dumps(raw))
    first = _call("package_add", str(path)).split()
    assert first[:2] == ["our-qa", "v1"]
    assert "already registered" in _call("package_add", str(path))
    raw["description"] = "second"
    path.write_text(json.dumps(raw))
    second = _call("package_add", str(path)).split()
    assert second[:2] == ["our-qa", "v2"]
    from scoring.packages import package_resolve

    assert package_resolve("our-qa").version == 2
    assert package_resolve("our-qa@1").sha256 == first[2]
    assert package_resolve(first[2][:12]).version == 1
    assert PromptPackage.objects.filter(name="our-qa").count() == 2
    path.write_text("{not json")
    with pytest.raises(CommandError, match="not JSON"):
        _call("package_add", str(path))


def test_builtin_packages_are_valid_and_hash_stably(db):
    from scoring.packages import package_read

    for path in sorted(BUILTIN_DIR.glob("*.json")):
        package = package_read(path)
        assert package.sampling["temperature"] == 0
        assert package_read(path).sha256 == package.sha256
    assert {p.stem for p in BUILTIN_DIR.glob("*.json")} == {
        "official-prediction",
        "frames-prediction",
        "reference-judge",
        "video-judge",
        "blind-rater",
        "qa-judge",
        "qa-prediction",
    }


def test_run_cancel_command(frozen_release, make_endpoint, packages):
    make_endpoint()
    _call(
        "predict",
        "x",
        "--release",
        "r1",
        "--condition",
        "prompt_only",
        "--endpoint",
        "stand-in-vlm",
        "--package",
        "frames-prediction",
    )
    assert "cancelled" in _call("run_cancel", "x")
    assert Run.objects.get(name="x").status == "cancelled"

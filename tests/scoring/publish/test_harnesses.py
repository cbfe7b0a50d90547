"""The published demo release runs as shipped, in the real harnesses.

The demo release (``seed_demo``: two generated one-minute videos, twelve steps) is published with
its Official clips and Ordered frames, and the folder is copied to another path. Then, in a
separate virtual environment holding the real packages (tests/scoring/publish/harness_env.py):
``datasets`` loads it with the declared features and its media paths open to files whose SHA-256
match; lmms-eval runs its task with the ``dummy`` model and with ``--model openai`` against the
stand-in provider (not a model), writing a results file; inspect_ai runs its task against the
stand-in as an OpenAI-compatible model with the stand-in as grader. In both harnesses a judge call
that fails once with 429 is scored as its answer and one that always fails is a judge failure,
counted apart. verify_manifest passes on the copy, and import_benchmark loads the copy into an
empty instance with both hashes.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys

import pytest
from django.core.management import call_command
from django.db import transaction
from django.test import override_settings

from tests.conftest import ROOT
from tests.scoring.publish.harness_env import harness_python

pytestmark = [pytest.mark.harness, pytest.mark.timeout(3600)]
TASK = "intent_studio_demo_models_v1_official"


@pytest.fixture(scope="module")
def published_demo(django_db_setup, django_db_blocker, tmp_path_factory):
    """The demo release published (in a transaction rolled back afterwards) and copied to
    another path: (the copy, the release's two hashes)."""
    from annotation.models import Release

    made = tmp_path_factory.mktemp("made")
    with (
        override_settings(MEDIA_ROOT=str(made / "media"), STUDIO_DEMO_PASSWORD="harness-tests"),
        django_db_blocker.unblock(),
        transaction.atomic(),
    ):
        call_command("seed_demo", stdout=open(os.devnull, "w"))  # noqa: SIM115
        release = Release.objects.get(name="demo_models_v1")
        hashes = (release.sample_list_sha256, release.manifest_sha256)
        call_command(
            "publish_benchmark",
            "demo_models_v1",
            str(made / "published"),
            "--conditions",
            "official,ordered",
            stdout=open(os.devnull, "w"),  # noqa: SIM115
        )
        transaction.set_rollback(True)
    copy = tmp_path_factory.mktemp("elsewhere") / "intent-studio-demo"
    shutil.copytree(made / "published", copy)
    shutil.rmtree(made)
    return copy, hashes


@pytest.fixture(scope="module")
def python():
    return harness_python()


def _env(tmp_path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "PYTHONPATH"))}
    env |= {
        "HF_HOME": str(tmp_path / "hf-home"),
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
        "INSPECT_DISPLAY": "plain",
        "NO_COLOR": "1",
    }
    return env | extra


def _run(args, *, cwd, env, timeout=900) -> str:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-6000:]
    return done.stdout


def _faults(stand_in, rows) -> tuple[str, str]:
    """Script the stand-in judge: every call about one step fails (503), and the first call
    about any other step answers 429 once. Returns the failing step's id and a text unique to
    its reference."""
    texts = [(r["sample_id"], r["procedural_intent"]) for r in rows]
    everything = json.dumps(rows)
    sample, text = next((s, t) for s, t in texts if everything.count(json.dumps(t)) == 1)
    stand_in.rules(
        {"model": "stand-in-judge", "contains": text, "times": -1, "action": {"status": 503}},
        {"model": "stand-in-judge", "times": 1, "action": {"status": 429, "retry_after": 1}},
    )
    return sample, text


def _rows(folder) -> list[dict]:
    return [json.loads(line) for line in (folder / "data/test.jsonl").read_text().splitlines()]


def test_datasets_loads_it_with_the_declared_features_and_media_that_match(
    published_demo, python, tmp_path
):
    folder, _hashes = published_demo
    script = """
import hashlib, json, sys
import datasets, yaml
folder = sys.argv[1]
card = yaml.safe_load(open(folder + "/README.md").read().split("---\\n")[1])
declared = {i["config_name"]: i["features"] for i in card["dataset_info"]}
report = {}
for config in card["configs"]:
    name = config["config_name"]
    rows = datasets.load_dataset(folder, name, split="test")
    want = datasets.Features._from_yaml_list(declared[name])
    assert rows.features == want, (rows.features, want)
    checked = 0
    for row in rows:
        for column, value in row.items():
            if column.startswith("media_") and not column.endswith("_sha256") and value:
                paths = value if isinstance(value, list) else [value]
                digests = row[column + "_sha256"]
                digests = digests if isinstance(digests, list) else [digests]
                for path, digest in zip(paths, digests):
                    data = open(folder + "/" + path, "rb").read()
                    assert hashlib.sha256(data).hexdigest() == digest, path
                    checked += 1
    report[name] = {"rows": rows.num_rows, "media_checked": checked}
print(json.dumps(report))
"""
    out = _run([python, "-c", script, folder], cwd=tmp_path, env=_env(tmp_path))
    report = json.loads(out.strip().splitlines()[-1])
    assert report == {"default": {"rows": 12, "media_checked": 12 * (1 + 16 + 16)}}


def test_verify_manifest_passes_on_the_copy(published_demo, db):
    import io

    folder, (_samples, manifest_sha256) = published_demo
    out = io.StringIO()
    call_command("verify_manifest", str(folder), stdout=out)
    assert out.getvalue().startswith("OK release demo_models_v1: 12 samples")
    assert manifest_sha256 in out.getvalue()


def _lmms(python, folder, tmp_path, model_args, env, output):
    return _run(
        [
            python,
            "-m",
            "lmms_eval",
            *model_args,
            "--tasks",
            TASK,
            "--include_path",
            folder / "lmms_eval",
            "--output_path",
            output,
            "--log_samples",
        ],
        cwd=tmp_path,  # not the folder: every path must come from the task file
        env=env,
    )


def _lmms_results(output) -> tuple[dict, list[dict]]:
    (results,) = output.rglob("*_results.json")
    (samples,) = output.rglob("*_samples_*.jsonl")
    lines = [json.loads(line) for line in samples.read_text().splitlines()]
    return json.loads(results.read_text())["results"][TASK], lines


def test_lmms_eval_runs_it_with_the_dummy_model(published_demo, python, tmp_path):
    folder, _hashes = published_demo
    _lmms(python, folder, tmp_path, ["--model", "dummy"], _env(tmp_path), tmp_path / "out")
    results, samples = _lmms_results(tmp_path / "out")
    # The dummy model's reply is not a prediction: 0 on every dimension, no judge needed.
    assert results["invalid_predictions,none"] == 12 and results["overall,none"] == 0
    assert results["judge_failures,none"] == 0 and len(samples) == 12


def test_lmms_eval_runs_it_against_the_stand_in_with_judge_retries_and_failures(
    published_demo, python, tmp_path, stand_in
):
    folder, _hashes = published_demo
    failing, _text = _faults(stand_in, _rows(folder))
    env = _env(
        tmp_path,
        INTENT_STUDIO_JUDGE_BASE_URL=stand_in.base_url,
        INTENT_STUDIO_JUDGE_MODEL="stand-in-judge",
        INTENT_STUDIO_JUDGE_MAX_ATTEMPTS="3",
        INTENT_STUDIO_JUDGE_BACKOFF_BASE="0.05",
    )
    model = ["--model", "openai", "--model_args",
             f"model=stand-in-vision,base_url={stand_in.base_url},api_key=stand-in"]  # fmt: skip
    _lmms(python, folder, tmp_path, model, env, tmp_path / "out")
    results, samples = _lmms_results(tmp_path / "out")
    assert results["judged,none"] == 11 and results["judge_failures,none"] == 1
    assert results["invalid_predictions,none"] == 0
    records = [s["local"] for s in samples]
    (failed,) = [r for r in records if r["status"] == "judge_failure"]
    assert failed["sample_id"] == failing and failed["scores"] == {}
    assert "HTTP 503 after 3 attempt(s)" in failed["reason"]
    judge_log = [e for e in stand_in.stats()["log"] if e["model"] == "stand-in-judge"]
    assert [e["status"] for e in judge_log].count(429) == 1  # retried, then scored
    assert [e["status"] for e in judge_log].count(503) == 3
    assert len([e for e in judge_log if e["status"] == 200]) == 11
    # The prediction calls carried the package's system message and the 16 shipped frames.
    predictions = [b for b in stand_in.bodies(50) if b["model"] == "stand-in-vision"]
    assert predictions and all(b["messages"][0]["role"] == "system" for b in predictions)
    assert all(len(b["messages"][1]["content"]) == 17 for b in predictions)


def test_inspect_ai_runs_it_against_the_stand_in_with_the_stand_in_as_grader(
    published_demo, python, tmp_path, stand_in
):
    folder, _hashes = published_demo
    failing, _text = _faults(stand_in, _rows(folder))
    env = _env(tmp_path, STANDIN_BASE_URL=stand_in.base_url, STANDIN_API_KEY="stand-in")
    _run(
        [
            python,
            "-m",
            "inspect_ai",
            "eval",
            "inspect/intent_studio.py",
            "-T",
            "condition=official",
            "-T",
            "grader_max_retries=2",
            "--model",
            "openai-api/standin/stand-in-vision",
            "--model-role",
            "grader=openai-api/standin/stand-in-judge",
            "--log-dir",
            tmp_path / "logs",
            "--log-format",
            "json",
        ],
        cwd=folder,
        env=env,
    )
    (log_file,) = (tmp_path / "logs").glob("*.json")
    log = json.loads(log_file.read_text())
    assert log["status"] == "success"
    scores = {s["name"]: s for s in log["results"]["scores"]}
    assert set(scores) == {"local", "procedural", "next", "overall"}
    for score in scores.values():
        assert (score["scored_samples"], score["unscored_samples"]) == (11, 1)
        assert score["metrics"]["stderr"]["params"] == {"cluster": "video"}
    by_id = {s["id"]: s["scores"]["reference_judge"] for s in log["samples"]}
    assert by_id[failing]["reason"] == "judge_failure"
    assert all(s["metadata"]["status"] == "judged" for i, s in by_id.items() if i != failing)
    judge_log = [e for e in stand_in.stats()["log"] if e["model"] == "stand-in-judge"]
    assert [e["status"] for e in judge_log].count(429) == 1
    assert len([e for e in judge_log if e["status"] == 200]) == 11
    # inspect sent the package's system message and the shipped PNG files byte for byte.
    shipped = {d for r in _rows(folder) for d in r["media_official_frames_sha256"]}
    predictions = [b for b in stand_in.bodies(50) if b["model"] == "stand-in-vision"]
    assert predictions and all(b["messages"][0]["role"] == "system" for b in predictions)
    for body in predictions:
        images = [p["image_url"]["url"] for p in body["messages"][1]["content"][1:]]
        assert len(images) == 16
        assert {
            hashlib.sha256(base64.b64decode(u.split(",", 1)[1])).hexdigest() for u in images
        } <= shipped


def test_import_benchmark_of_the_copy_into_an_empty_instance(published_demo, tmp_path):
    folder, (sample_list_sha256, manifest_sha256) = published_demo
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO")}
    env |= {
        "DATABASE_URL": f"sqlite:///{tmp_path / 'empty.sqlite3'}",
        "MEDIA_ROOT": str(tmp_path / "media"),
        "PYTHONPATH": str(ROOT),
    }
    manage = [sys.executable, ROOT / "manage.py"]
    _run([*manage, "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env)
    out = _run([*manage, "import_benchmark", folder], cwd=ROOT, env=env)
    assert f"sample list SHA-256  {sample_list_sha256}" in out
    assert f"manifest SHA-256     {manifest_sha256}" in out
    stored = {p.name for p in (tmp_path / "media" / "published").rglob("*") if p.is_file()}
    assert stored == {p.name for p in (folder / "media").iterdir()}

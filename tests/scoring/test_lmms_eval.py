"""The lmms-eval task folder, checked against lmms-eval's documented task schema (lmms-eval
itself needs torch and model weights, too much to install here): the YAML's keys and hooks, the
hooks run with the standard library only, the prompt is our official package, and the metric is
our reference judge (here the stand-in), with 0 for a reply that is not a prediction."""

import importlib.util
import json
import sys

import pytest
import yaml
from django.core.management import call_command

pytestmark = pytest.mark.django_db


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_constructor(
    "!function", lambda loader, node: ("function", loader.construct_scalar(node))
)


@pytest.fixture
def task(study_release, packages, tmp_path):
    packages("official-prediction")
    folder = tmp_path / "task"
    call_command("export_lmms_eval", str(folder), "--release", "sr")
    return folder


def _utils(folder):
    spec = importlib.util.spec_from_file_location("intent_studio_task_utils", folder / "utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_yaml_follows_the_task_schema(task, study_release, packages):
    config = yaml.load((task / "intent_studio_sr.yaml").read_text(), Loader=_Loader)  # noqa: S506 (SafeLoader + one tag)
    assert config["task"] == "intent_studio_sr" and config["test_split"] == "test"
    assert config["output_type"] == "generate_until"
    for hook in ("doc_to_visual", "doc_to_text", "process_results"):
        kind, name = config[hook]
        assert kind == "function" and hasattr(_utils(task), name.split(".")[1]), hook
    assert [m["metric"] for m in config["metric_list"]] == [
        "local",
        "procedural",
        "next",
        "overall",
    ]
    assert config["generation_kwargs"]["temperature"] == 0
    assert config["metadata"]["manifest_sha256"] == study_release.manifest_sha256
    assert config["metadata"]["judge_package_sha256"] == packages("reference-judge").sha256
    assert (task / "data" / "data" / "test.jsonl").exists()


def test_the_hooks_prompt_with_our_package_and_score_with_our_judge(task, stand_in, monkeypatch):
    before = set(sys.modules)
    utils = _utils(task)
    assert not any(m.startswith("django") for m in set(sys.modules) - before)
    doc = json.loads((task / "data" / "data" / "test.jsonl").read_text().splitlines()[0])
    packages = json.loads((task / "packages.json").read_text())
    text = utils.doc_to_text(doc)
    assert packages["prediction"]["package"]["system"].split("\n")[0] in text
    assert doc["local_intent"] not in text  # the labels never reach the model
    monkeypatch.setenv("INTENT_STUDIO_VIDEOS", "/videos")
    assert utils.doc_to_visual(doc) == [f"/videos/{doc['sample_id']}.mp4"]
    monkeypatch.setenv("INTENT_STUDIO_JUDGE_BASE_URL", stand_in.base_url)
    monkeypatch.setenv("INTENT_STUDIO_JUDGE_MODEL", "stand-in-judge")
    reply = json.dumps(
        {"local_intent": doc["local_intent"], "procedural_intent": "x", "next_step": "y"}
    )
    scores = utils.process_results(doc, [reply])
    assert set(scores) == {"local", "procedural", "next", "overall"} and scores["local"] > 0
    assert scores["overall"] == pytest.approx(
        (scores["local"] + scores["procedural"] + scores["next"]) / 3
    )
    assert utils.process_results(doc, ["I think it is tea."]) == {
        "local": 0, "procedural": 0, "next": 0, "overall": 0,
    }  # fmt: skip

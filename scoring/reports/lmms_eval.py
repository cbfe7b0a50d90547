"""A frozen set as an lmms-eval task folder, so the benchmark can be run from that harness.

The folder holds ``<task>.yaml`` (lmms-eval's task configuration: the dataset, the prompt,
generation settings, per-sample scoring and the metrics), ``utils.py`` (plain Python, standard
library only: it reads ``packages.json`` beside it), ``packages.json`` (our official prediction
package and our reference judge package, as registered, with their SHA-256) and ``data/`` (the
Hugging Face datasets folder of :mod:`scoring.reports.hf_dataset`).

Scoring is our reference judge over any OpenAI-compatible endpoint named by environment
variables (``INTENT_STUDIO_JUDGE_BASE_URL``, ``INTENT_STUDIO_JUDGE_MODEL``,
``INTENT_STUDIO_JUDGE_API_KEY``); a reply that is not a valid prediction, or a judge failure,
scores 0 (the full-benchmark rule). The model's video is the step's Official clip, looked up as
``$INTENT_STUDIO_VIDEOS/<sample_id>.mp4``."""

from __future__ import annotations

import json
import re
from pathlib import Path

from scoring.packages import package_resolve, package_verified
from scoring.reports.hf_dataset import hf_dataset_export

UTILS = '''"""lmms-eval hooks for an Intent Studio task (written by manage.py export_lmms_eval).

Standard library only. The prompts are our packages in packages.json (their SHA-256 is checked
when this module loads); the judge is any OpenAI-compatible endpoint named by the environment:
INTENT_STUDIO_JUDGE_BASE_URL (up to /v1), INTENT_STUDIO_JUDGE_MODEL, INTENT_STUDIO_JUDGE_API_KEY
(optional). Videos: $INTENT_STUDIO_VIDEOS/<sample_id>.mp4, the Official observation of the step.
"""

import hashlib
import json
import os
import re
import urllib.request
from pathlib import Path

_HERE = Path(__file__).resolve().parent
PACKAGES = json.loads((_HERE / "packages.json").read_text(encoding="utf-8"))
FIELDS = ("local_intent", "procedural_intent", "next_step")
SCORES = {"local": "local_intent_score", "procedural": "procedural_intent_score",
          "next": "next_plan_score"}


def _canonical(value):
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


for _name, _package in PACKAGES.items():
    if hashlib.sha256(_canonical(_package["package"]).encode("utf-8")).hexdigest() != _package[
        "sha256"
    ]:
        raise RuntimeError(f"packages.json: {_name} does not match its SHA-256")


def _messages(purpose, data):
    package = PACKAGES[purpose]["package"]
    schema = json.dumps(package["output_schema"], ensure_ascii=False, sort_keys=True)
    system = package["system"].replace("{{output_schema}}", schema, 1)
    document = json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2)
    user = re.sub(r"\\{\\{input\\}\\}", lambda _m: document, package["user_template"], count=1)
    return system, user


def doc_to_visual(doc):
    folder = os.environ.get("INTENT_STUDIO_VIDEOS", "videos")
    return [os.path.join(folder, doc["sample_id"] + ".mp4")]


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    system, user = _messages("prediction", {"evidence": {"kind": "video"}})
    return system + "\\n\\n" + user


def _reply_object(text):
    text = text.strip()
    fenced = re.fullmatch(r"```(?:json)?\\s*(.*?)\\s*```", text, re.S)
    if fenced:
        text = fenced.group(1)
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def parse_prediction(text):
    value = _reply_object(text)
    if value is None or set(value) != set(FIELDS):
        return None
    if not all(isinstance(value[f], str) and value[f].strip() for f in FIELDS):
        return None
    return value


def _judge(doc, prediction):
    reference = {
        "local_intent": doc["local_intent"],
        "procedural_intent": doc["procedural_intent"],
        "observed_next_step": doc["next_step"],
        "plausible_next_steps": list(doc.get("plausible_next_steps") or []),
    }
    data = {"reference": reference, "candidates": [{"candidate_id": "C01", **prediction}]}
    system, user = _messages("reference_judge", data)
    package = PACKAGES["reference_judge"]["package"]
    body = {"model": os.environ["INTENT_STUDIO_JUDGE_MODEL"],
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            **package.get("sampling", {})}
    headers = {"Content-Type": "application/json"}
    if os.environ.get("INTENT_STUDIO_JUDGE_API_KEY"):
        headers["Authorization"] = "Bearer " + os.environ["INTENT_STUDIO_JUDGE_API_KEY"]
    url = os.environ["INTENT_STUDIO_JUDGE_BASE_URL"].rstrip("/") + "/chat/completions"
    request = urllib.request.Request(url, json.dumps(body).encode("utf-8"), headers)
    with urllib.request.urlopen(request, timeout=120) as response:
        reply = json.loads(response.read())
    evaluation = _reply_object(reply["choices"][0]["message"]["content"] or "")
    rows = (evaluation or {}).get("evaluations")
    if not isinstance(rows, list) or len(rows) != 1 or rows[0].get("candidate_id") != "C01":
        return None
    scores = {}
    for ours, theirs in SCORES.items():
        value = rows[0].get(theirs)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 100:
            return None
        scores[ours] = value
    return scores


def process_results(doc, results):
    """Per sample: the reference judge's three scores and Overall; 0 when the reply is not a
    valid prediction or the judge fails (the full-benchmark rule)."""
    prediction = parse_prediction(results[0] if results else "")
    scores = None
    if prediction is not None:
        try:
            scores = _judge(doc, prediction)
        except (OSError, ValueError, KeyError, IndexError, TypeError):
            scores = None
    scores = scores or {"local": 0, "procedural": 0, "next": 0}
    scores["overall"] = (scores["local"] + scores["procedural"] + scores["next"]) / 3
    return scores
'''


def _task_name(name: str) -> str:
    return "intent_studio_" + re.sub(r"[^a-z0-9_]", "_", name.lower())


def lmms_eval_export(*, release, manifest=None, folder: Path) -> dict:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    data = hf_dataset_export(release=release, manifest=manifest, folder=folder / "data")
    sealed = manifest or release
    packages = {}
    for purpose, ref in (
        ("prediction", "official-prediction"),
        ("reference_judge", "reference-judge"),
    ):
        row = package_resolve(ref)
        packages[purpose] = {"name": row.name, "version": row.version, "sha256": row.sha256,
                             "package": package_verified(row).data}  # fmt: skip
    (folder / "packages.json").write_text(
        json.dumps(packages, ensure_ascii=False, sort_keys=True, indent=2) + "\n", encoding="utf-8"
    )
    (folder / "utils.py").write_text(UTILS, encoding="utf-8")
    task = _task_name(sealed.name)
    sampling = packages["prediction"]["package"].get("sampling", {})
    metrics = "".join(
        f"  - metric: {m}\n    aggregation: mean\n    higher_is_better: true\n"
        for m in ("local", "procedural", "next", "overall")
    )
    yaml = (
        f"# lmms-eval task written by Intent Studio (manage.py export_lmms_eval).\n"
        f"task: {task}\n"
        f"dataset_path: {json.dumps(str((folder / 'data').resolve()))}\n"
        f"test_split: test\n"
        f"output_type: generate_until\n"
        f"doc_to_visual: !function utils.doc_to_visual\n"
        f"doc_to_text: !function utils.doc_to_text\n"
        f'doc_to_target: "next_step"\n'
        f"generation_kwargs:\n"
        f"  max_new_tokens: {int(sampling.get('max_tokens', 512))}\n"
        f"  temperature: 0\n"
        f"  do_sample: false\n"
        f"process_results: !function utils.process_results\n"
        f"metric_list:\n{metrics}"
        f"metadata:\n"
        f"  version: 1\n"
        f"  set: {json.dumps(sealed.name)}\n"
        f"  sample_list_sha256: {json.dumps(sealed.sample_list_sha256)}\n"
        f"  manifest_sha256: {json.dumps(sealed.manifest_sha256)}\n"
        f"  prediction_package_sha256: {json.dumps(packages['prediction']['sha256'])}\n"
        f"  judge_package_sha256: {json.dumps(packages['reference_judge']['sha256'])}\n"
    )
    (folder / f"{task}.yaml").write_text(yaml, encoding="utf-8")
    return {"task": task, "steps": data["steps"]}

"""The harness part of a published benchmark: the prompt packages, the shared harness module,
the lmms-eval tasks (one per condition, and a ``_video`` variant of each clip condition) and the
inspect_ai task. The Python files are shipped as they are in ``scoring/publish/harness/``."""

from __future__ import annotations

import json
import re
from pathlib import Path

from scoring.packages import Package
from scoring.publish.harness.intent_studio_harness import METRICS
from scoring.publish.layout import (
    HARNESS_FILE,
    INSPECT_FILE,
    LMMS_DIR,
    PACKAGES_DIR,
    ROWS_PARQUET,
    is_clip_condition,
)
from studio.canonical import canonical_bytes

SOURCES = Path(__file__).resolve().parent / "harness"
# lmms-eval stops a reply at the first `until` string; its default (a blank line) would cut a
# reply the studio keeps whole, and the studio sends no stop sequence. So `until` is a string no
# reply holds: generation ends at the model's end of turn or at max_new_tokens, as in studio runs.
NO_STOP = "<|intent-studio: no stop sequence|>"
LOWER_IS_BETTER = {
    "local_se_clustered",
    "procedural_se_clustered",
    "next_se_clustered",
    "overall_se_clustered",
    "invalid_predictions",
    "judge_failures",
}


def task_stem(name: str) -> str:
    return re.sub(r"[^a-z0-9_]", "_", name.lower())


def lmms_tasks(name: str, conditions: list[str]) -> list[tuple[str, str, str]]:
    """(task name, condition, interface) of every lmms-eval task."""
    stem = task_stem(name)
    tasks = [(f"intent_studio_{stem}_{c}", c, "frames") for c in conditions]
    tasks += [
        (f"intent_studio_{stem}_{c}_video", c, "video") for c in conditions if is_clip_condition(c)
    ]
    return tasks


def package_file(purpose: str, package: Package) -> str:
    return f"{PACKAGES_DIR}/{package.name}.json"


def _yaml_task(*, task: str, condition: str, interface: str, described: dict) -> str:
    sampling, packages = described["prediction_sampling"], described["packages"]
    metrics = "".join(
        f"  - metric: {m}\n    aggregation: !function utils.agg_{m}\n"
        f"    higher_is_better: {'false' if m in LOWER_IS_BETTER else 'true'}\n"
        for m in METRICS
    )
    media = "the clip (MP4)" if interface == "video" else "the frames (PNG)"
    return (
        f"# lmms-eval task of the benchmark {described['name']} published by Intent Studio:\n"
        f"# condition {condition}, media as {media}. Paths are relative to this file.\n"
        f"task: {task}\n"
        f"dataset_path: parquet\n"
        f"dataset_kwargs:\n"
        f"  data_files:\n"
        f"    test: ../{ROWS_PARQUET}\n"
        f"test_split: test\n"
        f"output_type: generate_until\n"
        f"process_docs: !function utils.docs_{condition}\n"
        f"doc_to_visual: !function utils.doc_to_visual\n"
        f"doc_to_text: !function utils.doc_to_text\n"
        f"doc_to_messages: !function utils.doc_to_messages\n"
        f"doc_to_target: next_step\n"
        f"generation_kwargs:\n"
        f"  max_new_tokens: {int(sampling.get('max_tokens', 512))}\n"
        f"  temperature: {int(sampling.get('temperature', 0))}\n"
        f"  do_sample: false\n"
        f"  until:\n"
        f"  - {json.dumps(NO_STOP)}\n"
        f"process_results: !function utils.process_results\n"
        f"metric_list:\n{metrics}"
        f"lmms_eval_specific_kwargs:\n"
        f"  default:\n"
        f"    condition: {condition}\n"
        f"    interface: {interface}\n"
        f"    system_role: true\n"
        f"metadata:\n"
        f"  version: 1\n"
        f"  set: {json.dumps(described['name'])}\n"
        f"  sample_list_sha256: {json.dumps(described['sample_list_sha256'])}\n"
        f"  manifest_sha256: {json.dumps(described['manifest_sha256'])}\n"
        f"  prediction_package_sha256: {json.dumps(packages['prediction']['sha256'])}\n"
        f"  judge_package_sha256: {json.dumps(packages['reference_judge']['sha256'])}\n"
    )


def harness_write(folder: Path, *, described: dict, packages: dict[str, Package]) -> None:
    """Write packages/, harness/, lmms_eval/ and inspect/ into ``folder``."""
    folder = Path(folder)
    for purpose, package in packages.items():
        target = folder / package_file(purpose, package)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(canonical_bytes(package.data))
    for source, target in (
        ("intent_studio_harness.py", HARNESS_FILE),
        ("lmms_eval_utils.py", f"{LMMS_DIR}/utils.py"),
        ("inspect_task.py", INSPECT_FILE),
    ):
        path = folder / target
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes((SOURCES / source).read_bytes())
    for task, condition, interface in lmms_tasks(described["name"], described["conditions"]):
        text = _yaml_task(task=task, condition=condition, interface=interface, described=described)
        (folder / LMMS_DIR / f"{task}.yaml").write_text(text, encoding="utf-8")

"""The dataset card (``README.md``) of a published benchmark.

Its YAML header is what Hugging Face ``datasets`` reads: the config ``default`` over the Parquet
rows (``datasets`` builds every config of a folder with one file format, so the JSON Lines copy of
the rows is for readers without it) and ``dataset_info.features`` declaring every column with a
fixed type, so a column is typed the same whatever the data holds. The text says what the
set is, its two hashes, the record format and the window rule, and how to load and check it.
"""

from __future__ import annotations

import json

from scoring.publish.layout import (
    DESCRIPTION,
    HARNESS_FILE,
    INSPECT_FILE,
    LMMS_DIR,
    MEDIA_PREFIX,
    RELEASE_DIR,
    ROWS_JSONL,
    ROWS_PARQUET,
    SPLIT,
)

CONFIGS = (("default", ROWS_PARQUET),)


def _feature(name: str, kind: str) -> list[str]:
    if kind == "list<string>":
        return [f"  - name: {name}", "    sequence: string"]
    return [f"  - name: {name}", f"    dtype: {kind}"]


def card_yaml(*, title: str, columns: list[tuple[str, str]]) -> list[str]:
    lines = ["---", f"pretty_name: {json.dumps(title)}", "task_categories:", "- video-text-to-text"]
    lines.append("configs:")
    for name, path in CONFIGS:
        lines += [
            f"- config_name: {name}",
            "  data_files:",
            f"  - split: {SPLIT}",
            f"    path: {path}",
        ]
        if name == "default":
            lines.append("  default: true")
    lines.append("dataset_info:")
    for name, _path in CONFIGS:
        lines += [f"- config_name: {name}", "  features:"]
        for column, kind in columns:
            lines += _feature(column, kind)
    lines.append("---")
    return lines


def _type(kind: str) -> str:
    return {"list<string>": "list of text", "int64": "integer", "string": "text"}[kind]


def card_text(*, described: dict, columns: list[tuple[str, str]], media: dict) -> str:
    """The whole README.md. ``described`` is publish.json; ``media`` counts and sizes."""
    name, kind = described["name"], described["kind"]
    title = f"{name} (Intent Studio {kind})"
    record_fields = described["record_fields"]
    lines = card_yaml(title=title, columns=columns)
    lines += [
        "",
        f"# {name}",
        "",
        f"Micro-steps of first-person video frozen in Intent Studio as {kind} `{name}`"
        + (f", drawn from release `{described['release']}`" if kind != "release" else "")
        + ". For every step: its times on the source video's presentation timeline, in integer"
        " microseconds, its scene and source-video SHA-256, and its labels: what the person is"
        " doing now (`local_intent`), why (`procedural_intent`), what they did next (`next_step`)"
        " and other sensible next steps (`plausible_next_steps`).",
        "",
        "A model sees only the observation: the frames of the source video in the half-open window"
        " `[start_us, cutoff_us)`, which ends on the last frame before the step's outcome becomes"
        " visible. The media of each published condition are in this folder, rendered from the"
        " source videos and verified frame by frame.",
        "",
        "| what | value |",
        "|---|---|",
        f"| steps | {described['sample_count']} |",
        f"| record format | `{described['record_format']}` |",
        f"| sample list SHA-256 | `{described['sample_list_sha256']}` |",
        f"| manifest SHA-256 | `{described['manifest_sha256']}` |",
        f"| conditions | {', '.join(f'`{c}`' for c in described['conditions'])} |",
        f"| media files | {media['files']} ({media['bytes']:,} bytes) |",
        f"| prediction package | `{described['packages']['prediction']['name']}` "
        f"`{described['packages']['prediction']['sha256']}` |",
        f"| reference-judge package | `{described['packages']['reference_judge']['name']}` "
        f"`{described['packages']['reference_judge']['sha256']}` |",
        "",
        "## Loading",
        "",
        "```python",
        "import datasets",
        "",
        f'rows = datasets.load_dataset("path/to/this/folder", split="{SPLIT}")',
        "```",
        "",
        "Media paths in the rows are relative to this folder (`media/<sha256>.mp4`,"
        " `media/<sha256>.png`: each file is named by the SHA-256 of its bytes, which the row"
        " repeats in the column ending in `_sha256`).",
        "",
        "## Columns",
        "",
        "| column | type | |",
        "|---|---|---|",
    ]
    for column, kind in columns:
        if column.startswith(MEDIA_PREFIX):
            what = "SHA-256 of the media" if column.endswith("_sha256") else "media path(s)"
        elif column == "tags":
            what = "record field when not empty"
        else:
            what = "record field"
        lines.append(f"| `{column}` | {_type(kind)} | {what} |")
    lines += [
        "",
        "## Checking the hashes",
        "",
        f"The record of a row is its columns that do not start with `{MEDIA_PREFIX}`, without"
        " `tags` when it is empty. One canonical record per line (RFC 8785: sorted keys, no"
        " spaces, UTF-8) is `annotations.jsonl`, whose SHA-256 the manifest names; the manifest's"
        " own SHA-256 is that of `manifest.json`. With nothing but the rows and `manifest.json`:",
        "",
        "```python",
        "import hashlib, json",
        "",
        f"RECORD_FIELDS = {json.dumps(record_fields)}",
        "",
        "def canonical(value):",
        '    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))',
        "    return text.encode()",
        "",
        "def sha(data):",
        "    return hashlib.sha256(data).hexdigest()",
        "",
        f'rows = [json.loads(line) for line in open("{ROWS_JSONL}", encoding="utf-8")]',
        "records = []",
        "for row in rows:",
        '    record = {k: v for k, v in row.items() if not k.startswith("media_")}',
        '    if not record.get("tags"):',
        '        record.pop("tags", None)',
        "    records.append(record)",
        'ids = [r["sample_id"] for r in records]',
        'sample_list_sha256 = sha("".join(i + "\\n" for i in sorted(ids)).encode())',
        'records_sha256 = sha(b"".join(canonical(r) + b"\\n" for r in records))',
        'manifest = json.load(open("manifest.json", encoding="utf-8"))',
        'assert manifest["sample_list_sha256"] == sample_list_sha256',
        'assert manifest["records_sha256"] == records_sha256',
        'print("manifest SHA-256", sha(canonical(manifest)))',
        "```",
        "",
        "`sha256sum -c SHA256SUMS` checks every byte of the folder; `manage.py verify_manifest"
        " FOLDER` of Intent Studio checks the hashes, the rows against the records and every"
        " medium against its row.",
        "",
        "## Files",
        "",
        "| file | what |",
        "|---|---|",
        f"| `{ROWS_PARQUET}`, `{ROWS_JSONL}` | the rows |",
        "| `media/` | the media, named by content |",
        "| `manifest.json`, `samples.txt`, `annotations.jsonl`, `steps.csv` | the frozen set's"
        " bundle (docs/manifests.md of Intent Studio) |",
        f"| `{DESCRIPTION}` | what this folder holds, for the harness tasks |",
        "| `packages/` | the prediction and reference-judge prompt packages, byte for byte |",
        f"| `{HARNESS_FILE}` | prompts, reply contracts, the judge with retries |",
        f"| `{LMMS_DIR}/` | lmms-eval tasks, one per condition (`--include_path {LMMS_DIR}`) |",
        f"| `{INSPECT_FILE}` | the inspect_ai task |",
        "| `SHA256SUMS` | the SHA-256 of every other file |",
    ]
    if kind != "release":
        lines.append(f"| `{RELEASE_DIR}/` | the bundle of the release this set was drawn from |")
    lines += [
        "",
        "Running the harness tasks, and what is comparable with Intent Studio's own runs: see"
        " `docs/publishing.md` of Intent Studio. In short:",
        "",
        "```sh",
        "export INTENT_STUDIO_JUDGE_BASE_URL=https://judge.example/v1",
        "export INTENT_STUDIO_JUDGE_MODEL=JUDGE",
        "python -m lmms_eval --model openai --model_args model=MODEL \\",
        f"    --tasks {described['lmms_tasks'][0]} --include_path {LMMS_DIR} \\",
        "    --output_path results/",
        f"inspect eval {INSPECT_FILE} -T condition={described['conditions'][0]} --model MODEL \\",
        "    --model-role grader=JUDGE",
        "```",
        "",
    ]
    return "\n".join(lines)

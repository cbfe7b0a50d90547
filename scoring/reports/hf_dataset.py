"""A frozen release (or manifest) as a Hugging Face ``datasets`` folder: ``data/test.jsonl``
(one record per step, the release's own record format) and a ``README.md`` dataset card whose
YAML header names the data file, so ``datasets.load_dataset(folder)`` loads it, and whose text
carries the set's two SHA-256 values so anyone can check it against the frozen manifest."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from annotation.releases.services import release_records

DATA = "data/test.jsonl"


def _card(*, name: str, kind: str, sealed, release_name: str, count: int, data_sha256: str) -> str:
    return "\n".join(
        [
            "---",
            "configs:",
            "- config_name: default",
            "  data_files:",
            "  - split: test",
            f"    path: {DATA}",
            "task_categories:",
            "- video-text-to-text",
            "pretty_name: " + json.dumps(f"{name} (Intent Studio {kind})"),
            "---",
            "",
            f"# {name}",
            "",
            f"Micro-steps of egocentric video frozen as {kind} `{name}` (release `{release_name}`)"
            " in Intent Studio: per step its times in microseconds (`start_us`, `cutoff_us`,"
            " `outcome_us`, `end_us`), the scene, the source video's SHA-256 and the labels"
            " (`local_intent`, `procedural_intent`, `next_step`, `plausible_next_steps`). A model's"
            " input is the observation `[start_us, cutoff_us]` of the source video; the videos are"
            " not part of this folder.",
            "",
            "| what | value |",
            "|---|---|",
            f"| steps | {count} |",
            f"| sample list SHA-256 | `{sealed.sample_list_sha256}` |",
            f"| manifest SHA-256 | `{sealed.manifest_sha256}` |",
            f"| `{DATA}` SHA-256 | `{data_sha256}` |",
            "",
            "The two manifest values are those of the frozen set; `manage.py export_release` (or",
            "`export_manifest`) writes the bundle they are computed from.",
            "",
        ]
    )


def hf_dataset_export(*, release, manifest=None, folder: Path) -> dict:
    """Write the folder; returns ``{"steps", "data_sha256"}``."""
    if manifest is not None:
        release = manifest.release
        wanted = {
            str(s) for s in manifest.samples.values_list("release_step__sample_id", flat=True)
        }
    else:
        wanted = None
    folder = Path(folder)
    (folder / "data").mkdir(parents=True, exist_ok=True)
    digest, count = hashlib.sha256(), 0
    with open(folder / DATA, "w", encoding="utf-8", newline="\n") as f:
        for record in release_records(release=release):
            if wanted is not None and record["sample_id"] not in wanted:
                continue
            line = json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"
            f.write(line)
            digest.update(line.encode("utf-8"))
            count += 1
    sealed = manifest or release
    card = _card(
        name=sealed.name,
        kind="manifest" if manifest else "release",
        sealed=sealed,
        release_name=release.name,
        count=count,
        data_sha256=digest.hexdigest(),
    )
    (folder / "README.md").write_text(card, encoding="utf-8")
    return {"steps": count, "data_sha256": digest.hexdigest()}

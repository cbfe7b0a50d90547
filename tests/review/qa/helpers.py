"""QA-group records for tests: a builder that writes valid groups on a given video."""

from __future__ import annotations

import json
import uuid

from studio.canonical import canonical_bytes

FRAME_US = 1_000_000 / 30


def at_frame(i: int) -> int:
    return round(i * FRAME_US)


def group_uid(n: int) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"qa-test-{n}"))


def evidence(a: int, b: int, modality: str = "visual", text: str = "the cup is lifted") -> dict:
    return {
        "start_us": at_frame(a),
        "end_us": at_frame(b),
        "modality": modality,
        "description": text,
    }


def group(n: int, video_sha: str, *, structure: str = "node", turns: int = 1, **extra) -> dict:
    modality = extra.pop("modality", "visual")
    ev_modality = "auditory" if modality == "auditory" else "visual"
    record = {
        "uid": group_uid(n),
        "video_sha256": video_sha,
        "split": "test",
        "structure": structure,
        "category": extra.pop("category", "action_status"),
        "modality": modality,
        "turn_count": turns,
        "episodes": [],
        "provenance": {"source_ids": [f"clip-{n}"], "generator_version": "gen-2"},
        "turns": [
            {
                "question": f"Question {t} of group {n}?",
                "answer": f"Answer {t}",
                "options": None,
                "depends_on": list(range(t)) if t else [],
                "evidence": [evidence(30 * (t + 1), 30 * (t + 1) + 15, ev_modality)]
                + (
                    [evidence(30 * (t + 1), 30 * (t + 1) + 10, "auditory", "a tap is heard")]
                    if modality == "audio_visual"
                    else []
                ),
            }
            for t in range(turns)
        ],
    }
    record.update(extra)
    return record


def jsonl(records, *, canonical: bool = True) -> str:
    if canonical:
        return "".join(canonical_bytes(r).decode() + "\n" for r in records)
    return "".join(json.dumps(r, indent=None) + "\n" for r in records)

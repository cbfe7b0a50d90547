"""The QA-group record (format ``qa-group/2``, docs/qa.md): validating one line of an import
file, and the canonical record a group exports as.

Pure Python: a line is checked against the video it names (duration and frame-time index handed
in by the caller), and every problem is reported with its place in the record. Evidence times
are snapped to the frame grid (a frame's presentation time, or the end of the video), so an
exported file, already on the grid, imports to exactly the same record.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from studio.canonical import MAX_SAFE_INTEGER

# qa-group/2 adds a turn's optional decision cutoff (``cutoff_us``); a qa-group/1 line is a
# qa-group/2 line without one, so old files import unchanged, and a group without a cutoff
# exports to exactly the bytes it always had.
RECORD_FORMAT = "qa-group/2"
RECORD_FORMATS = ("qa-group/1", "qa-group/2")
STRUCTURES = ("node", "edge", "chain", "loop")
MODALITIES = ("visual", "auditory", "audio_visual")
EVIDENCE_MODALITIES = ("visual", "auditory")
SPLITS = ("train", "val", "test")
MAX_TURNS = 8
MAX_TEXT = 4000
GROUP_KEYS = {
    "uid", "video_sha256", "split", "structure", "category", "modality", "turn_count",
    "episodes", "provenance", "turns",
}  # fmt: skip
TURN_KEYS = {"question", "answer", "options", "depends_on", "evidence"}
TURN_OPTIONAL_KEYS = {"cutoff_us"}
EVIDENCE_KEYS = {"start_us", "end_us", "modality", "description"}
PROVENANCE_KEYS = {"source_ids", "generator_version"}
CATEGORY_RE = re.compile(r"^[a-z][a-z0-9_]{0,59}$")
UID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
SHA_RE = re.compile(r"^[0-9a-f]{64}$")


class RecordError(ValueError):
    """A record breaks the schema; ``problems`` lists every problem found."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


@dataclass(frozen=True)
class VideoFacts:
    duration_us: int
    frame_times_us: np.ndarray


def snap_boundary(times_us: np.ndarray, duration_us: int, t_us: int) -> int:
    """The boundary nearest ``t_us``: a frame's time or the end of the video (ties earlier);
    the one rule of ``studio.display.snap_to_boundary``."""
    from studio.display import snap_to_boundary

    return snap_to_boundary(int(t_us), frame_times_us=times_us, duration_us=int(duration_us))


def _text(value, where: str, problems: list[str], *, required: bool = True) -> str:
    if not isinstance(value, str) or (required and not value.strip()):
        problems.append(f"{where} must be non-empty text")
        return ""
    if len(value) > MAX_TEXT:
        problems.append(f"{where} is longer than {MAX_TEXT} characters")
    return value


def _int(value, where: str, problems: list[str]) -> int | None:
    if not isinstance(value, int) or isinstance(value, bool):
        problems.append(f"{where} must be an integer of microseconds")
        return None
    if not 0 <= value <= MAX_SAFE_INTEGER:
        problems.append(f"{where} must be between 0 and 2**53 - 1")
        return None
    return value


def _keys(
    obj, allowed: set[str], where: str, problems: list[str], optional: set[str] = frozenset()
) -> bool:
    if not isinstance(obj, Mapping):
        problems.append(f"{where} must be an object")
        return False
    unknown = sorted(set(obj) - allowed - optional)
    missing = sorted(allowed - set(obj))
    if unknown:
        problems.append(f"{where}: unknown field(s) {', '.join(unknown)}")
    if missing:
        problems.append(f"{where}: missing field(s) {', '.join(missing)}")
    return True


def check_record(record, video_of) -> tuple[dict, int]:
    """The cleaned record (times snapped) and how many times snapping moved; RecordError lists
    every problem. ``video_of(sha256)`` gives the video's ``VideoFacts`` or None."""
    problems: list[str] = []
    if not _keys(record, GROUP_KEYS, "the record", problems):
        raise RecordError(problems)
    uid = record.get("uid")
    if not isinstance(uid, str) or not UID_RE.match(uid):
        problems.append("uid must be a lower-case hyphenated UUID")
    sha = record.get("video_sha256")
    facts = None
    if not isinstance(sha, str) or not SHA_RE.match(sha):
        problems.append("video_sha256 must be 64 lower-case hex digits")
    else:
        facts = video_of(sha)
        if facts is None:
            problems.append(f"video_sha256 {sha[:12]}… is not a source video on this instance")
    if record.get("split") not in SPLITS:
        problems.append(f"split must be one of {', '.join(SPLITS)}")
    structure = record.get("structure")
    if structure not in STRUCTURES:
        problems.append(f"structure must be one of {', '.join(STRUCTURES)}")
    category = record.get("category")
    if not isinstance(category, str) or not CATEGORY_RE.match(category):
        problems.append("category must be a lower-case name (letters, digits, _)")
    modality = record.get("modality")
    if modality not in MODALITIES:
        problems.append(f"modality must be one of {', '.join(MODALITIES)}")
    episodes = record.get("episodes")
    if not isinstance(episodes, list) or not all(
        isinstance(e, str) and e.strip() for e in episodes
    ):
        problems.append("episodes must be a list of non-empty text ids")
        episodes = []
    elif len(set(episodes)) != len(episodes):
        problems.append("episodes lists an id twice")
    provenance = record.get("provenance")
    if _keys(provenance, PROVENANCE_KEYS, "provenance", problems):
        ids = provenance.get("source_ids")
        if not isinstance(ids, list) or not all(isinstance(i, str) and i for i in ids):
            problems.append("provenance.source_ids must be a list of text ids")
        _text(provenance.get("generator_version"), "provenance.generator_version", problems)
    turns = record.get("turns")
    moved = 0
    cleaned_turns = []
    seen_modalities: set[str] = set()
    if not isinstance(turns, list) or not 1 <= len(turns) <= MAX_TURNS:
        problems.append(f"turns must be a list of 1 to {MAX_TURNS} turns")
        turns = []
    turn_count = record.get("turn_count")
    if turns and turn_count != len(turns):
        problems.append(f"turn_count is {turn_count!r} but there are {len(turns)} turns")
    for t, turn in enumerate(turns):
        where = f"turns[{t}]"
        if not _keys(turn, TURN_KEYS, where, problems, TURN_OPTIONAL_KEYS):
            continue
        question = _text(turn.get("question"), f"{where}.question", problems)
        answer = _text(turn.get("answer"), f"{where}.answer", problems)
        options = turn.get("options")
        if options is not None:
            if (
                not isinstance(options, list)
                or len(options) < 2
                or not all(isinstance(o, str) and o.strip() for o in options)
            ):
                problems.append(f"{where}.options must be null or a list of at least 2 texts")
            elif len(set(options)) != len(options):
                problems.append(f"{where}.options holds the same option twice")
            elif answer not in options:
                problems.append(f"{where}.options must contain the answer")
        depends = turn.get("depends_on")
        if not isinstance(depends, list) or not all(
            isinstance(d, int) and not isinstance(d, bool) and 0 <= d < t for d in depends
        ):
            problems.append(f"{where}.depends_on must list earlier turns (0 … {t - 1})")
            depends = []
        elif depends != sorted(set(depends)):
            problems.append(f"{where}.depends_on must be ascending without repeats")
        evidence = turn.get("evidence")
        cleaned_evidence = []
        if not isinstance(evidence, list) or not evidence:
            problems.append(f"{where}.evidence must list at least one interval")
            evidence = []
        for e, item in enumerate(evidence):
            ew = f"{where}.evidence[{e}]"
            if not _keys(item, EVIDENCE_KEYS, ew, problems):
                continue
            start = _int(item.get("start_us"), f"{ew}.start_us", problems)
            end = _int(item.get("end_us"), f"{ew}.end_us", problems)
            if item.get("modality") not in EVIDENCE_MODALITIES:
                problems.append(f"{ew}.modality must be visual or auditory")
            else:
                seen_modalities.add(item["modality"])
            description = _text(item.get("description"), f"{ew}.description", problems)
            if start is not None and end is not None and facts is not None:
                if end <= start:
                    problems.append(f"{ew} must end after it starts")
                elif end > facts.duration_us:
                    problems.append(
                        f"{ew} ends at {end} µs, after the end of the video "
                        f"({facts.duration_us} µs)"
                    )
                else:
                    s = snap_boundary(facts.frame_times_us, facts.duration_us, start)
                    n = snap_boundary(facts.frame_times_us, facts.duration_us, end)
                    moved += (s != start) + (n != end)
                    if n <= s:
                        problems.append(f"{ew} holds no frame once snapped to the frames")
                    start, end = s, n
            cleaned_evidence.append(
                {"start_us": start, "end_us": end, "modality": item.get("modality"),
                 "description": description}
            )  # fmt: skip
        cleaned_turn = {"question": question, "answer": answer, "options": options,
                        "depends_on": depends, "evidence": cleaned_evidence}  # fmt: skip
        cutoff = turn.get("cutoff_us")
        if cutoff is not None:
            cutoff = _int(cutoff, f"{where}.cutoff_us", problems)
            if cutoff is not None and facts is not None:
                if not 0 < cutoff <= facts.duration_us:
                    problems.append(
                        f"{where}.cutoff_us must be inside the video (0 < cutoff ≤ "
                        f"{facts.duration_us} µs)"
                    )
                else:
                    snapped = snap_boundary(facts.frame_times_us, facts.duration_us, cutoff)
                    moved += snapped != cutoff
                    cutoff = snapped
            cleaned_turn["cutoff_us"] = cutoff
        cleaned_turns.append(cleaned_turn)
    if len(turns) > 1 and len(cleaned_turns) == len(turns) and not cleaned_turns[-1]["depends_on"]:
        problems.append("the last turn of a multi-turn group must depend on an earlier turn")
    if structure in ("chain", "loop") and len(turns) < 2 and len(episodes or []) < 2:
        problems.append(f"a {structure} group needs at least 2 turns or at least 2 linked episodes")
    first_start = min(
        (e["start_us"] for t in cleaned_turns for e in t["evidence"] if e["start_us"] is not None),
        default=None,
    )
    for t, turn in enumerate(cleaned_turns):
        cutoff = turn.get("cutoff_us")
        if cutoff is not None and first_start is not None and cutoff <= first_start:
            problems.append(
                f"turns[{t}].cutoff_us must come after the group's first evidence starts "
                f"({first_start} µs): a predictive turn sees what happens before its cutoff"
            )
    if modality in MODALITIES and seen_modalities:
        needed = {"visual": {"visual"}, "auditory": {"auditory"}}.get(
            modality, {"visual", "auditory"}
        )
        missing = sorted(needed - seen_modalities)
        if missing:
            problems.append(f"a {modality} group needs {' and '.join(missing)} evidence")
    if problems:
        raise RecordError(problems)
    cleaned = {
        "uid": uid,
        "video_sha256": sha,
        "split": record["split"],
        "structure": structure,
        "category": category,
        "modality": modality,
        "turn_count": len(cleaned_turns),
        "episodes": list(episodes),
        "provenance": {
            "source_ids": list(provenance["source_ids"]),
            "generator_version": provenance["generator_version"],
        },
        "turns": cleaned_turns,
    }
    return cleaned, moved


def span_of(record: Mapping) -> tuple[int, int]:
    """The group's span: first evidence start to last evidence end (the review clip)."""
    intervals = [(e["start_us"], e["end_us"]) for t in record["turns"] for e in t["evidence"]]
    return min(a for a, _ in intervals), max(b for _, b in intervals)


def uid_key(uid: str) -> bytes:
    return uid.encode("utf-8")


def as_uuid(uid: str) -> uuid.UUID:
    return uuid.UUID(uid)


def sorted_records(records: Sequence[Mapping]) -> list[Mapping]:
    return sorted(records, key=lambda r: uid_key(r["uid"]))

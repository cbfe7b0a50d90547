"""How subjects become judge calls: anonymised, deterministically shuffled, grouped.

- reference and video judges: per step the candidates are ordered by ``seeded_rank(seed,
  "<sample>:<subject key>")`` (studio/canonical.py); that order is the stored permutation
  (``Judgement.position``). The judging unit is one candidate per call (default: its request,
  and so its score, never depends on which other candidates exist; the candidate is always
  ``C01``) or all candidates of a step in one call (``C01``, ``C02``, ... in the shuffled order,
  as the paper does);
- blind rater: all (step, candidate) pairs in one seeded order, cut into batches of 10 to 20
  (as near ``batch_size`` as the count allows; fewer than 10 pairs make one batch), each pair
  with a ``blind_id`` derived from the seed and the subject;
- QA judge: one answer per call.
"""

from __future__ import annotations

import hashlib
import math
import uuid
from dataclasses import dataclass, field

from scoring.judges.subjects import Subject, SubjectError
from studio.canonical import seeded_rank

BATCH_MIN, BATCH_MAX = 10, 20


@dataclass
class Member:
    subject: Subject
    candidate_id: str
    position: int


@dataclass
class Unit:
    key: str
    sample_id: uuid.UUID | None
    data: dict
    members: list[Member] = field(default_factory=list)


def _candidate(candidate_id: str, subject: Subject) -> dict:
    return {"candidate_id": candidate_id, **subject.candidate}


def _by_step(subjects: list[Subject], seed: int) -> dict[uuid.UUID, list[Subject]]:
    steps: dict[uuid.UUID, list[Subject]] = {}
    for subject in subjects:
        steps.setdefault(subject.sample_id, []).append(subject)
    return {
        sample: sorted(group, key=lambda s: seeded_rank(seed, f"{sample}:{s.key}"))
        for sample, group in sorted(steps.items(), key=lambda kv: str(kv[0]))
    }


def candidate_units(subjects, *, seed: int, per_step: bool, with_reference: bool) -> list[Unit]:
    units = []
    for sample, group in _by_step(subjects, seed).items():
        reference = group[0].reference
        if with_reference and per_step and any(s.reference != reference for s in group):
            raise SubjectError(
                f"step {sample} has different references in the judged runs (other releases); "
                "judge them one candidate per call"
            )
        if per_step:
            members = [Member(s, f"C{i + 1:02d}", i) for i, s in enumerate(group)]
            data = {"candidates": [_candidate(m.candidate_id, m.subject) for m in members]}
            if with_reference:
                data = {"reference": reference, **data}
            units.append(Unit(f"step:{sample}", sample, data, members))
            continue
        for i, subject in enumerate(group):
            data = {"candidates": [_candidate("C01", subject)]}
            if with_reference:
                data = {"reference": subject.reference, **data}
            units.append(Unit(subject.key, sample, data, [Member(subject, "C01", i)]))
    return units


def batch_sizes(count: int, target: int) -> list[int]:
    """Sizes of the rater batches: between 10 and 20 each when ``count`` >= 10."""
    if count <= 0:
        return []
    if count < BATCH_MIN:
        return [count]
    fewest, most = math.ceil(count / BATCH_MAX), count // BATCH_MIN
    n = min(max(round(count / max(target, 1)), fewest), most)
    base, extra = divmod(count, n)
    return [base + 1] * extra + [base] * (n - extra)


def blind_id(seed: int, subject: Subject) -> str:
    return "R" + hashlib.sha256(f"{seed}:blind:{subject.key}".encode()).hexdigest()[:10]


def rater_units(subjects, *, seed: int, batch_size: int) -> list[Unit]:
    ordered = sorted(subjects, key=lambda s: seeded_rank(seed, f"{s.sample_id}:{s.key}"))
    units, start = [], 0
    for number, size in enumerate(batch_sizes(len(ordered), batch_size), start=1):
        chunk = ordered[start : start + size]
        members = [Member(s, blind_id(seed, s), start + i) for i, s in enumerate(chunk)]
        if len({m.candidate_id for m in members}) != len(members):
            raise SubjectError("two items of a batch got the same blind_id; use another seed")
        data = {
            "items": [
                {
                    "blind_id": m.candidate_id,
                    "reference": m.subject.reference,
                    "prediction": m.subject.candidate,
                }
                for m in members
            ]
        }
        units.append(Unit(f"batch:{number:05d}", None, data, members))
        start += size
    return units


def qa_units(subjects) -> list[Unit]:
    units = []
    for i, subject in enumerate(subjects):
        data = {**subject.reference, "answer": subject.candidate["answer"]}
        units.append(Unit(subject.key, None, data, [Member(subject, "A01", i)]))
    return units

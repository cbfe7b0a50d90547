"""The shortcut and modality audit's rules, as pure functions of group verdicts
(docs/qa-evaluation.md, "Audits").

Input: for each audited model, for each condition it was run under, ``{group uid: verdict}`` as
``scoring.qa.verdicts.group_verdicts`` gives it (``correct`` | ``incorrect`` | ``review`` |
``unjudged`` | ``error``), and each group's modality label (``visual`` | ``auditory`` |
``audio_visual``).

A model **votes** on a question about a group under a condition only when its verdict there is
judged, that is ``correct`` or ``incorrect``; a dialogue that failed (``error``), a judge
contradiction (``review``) or a turn still without a judgement (``unjudged``) is no vote. A
flag needs a **strict majority** of the votes to say yes (yes > half of the votes, so one yes of
two is not enough), and at least one vote.

- ``language_shortcut``: under ``text_only``, yes = the group answered correctly.
- ``redundant_modality`` (``audio_visual`` groups): a model votes when it has a judged verdict
  under ``visual_only`` or ``audio_only``; yes = correct under either of them.
- ``mislabelled_modality``: a ``visual`` group, yes = correct under ``audio_only``; an
  ``auditory`` group, yes = correct under ``visual_only``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

FULL, TEXT_ONLY, VISUAL_ONLY, AUDIO_ONLY = "full", "text_only", "visual_only", "audio_only"
CONDITIONS = (FULL, TEXT_ONLY, VISUAL_ONLY, AUDIO_ONLY)
SHORTCUT, REDUNDANT, MISLABELLED = "language_shortcut", "redundant_modality", "mislabelled_modality"
FLAGS = (SHORTCUT, REDUNDANT, MISLABELLED)
JUDGED = ("correct", "incorrect")


@dataclass(frozen=True)
class Vote:
    """One flag's count for one group: the models that voted, and those that said yes."""

    flag: str
    voters: tuple[str, ...]
    yes: tuple[str, ...]
    conditions: tuple[str, ...]  # the conditions the flag looked at

    @property
    def flagged(self) -> bool:
        return bool(self.voters) and 2 * len(self.yes) > len(self.voters)


@dataclass(frozen=True)
class GroupAudit:
    group: str
    modality: str
    votes: tuple[Vote, ...] = field(default=())

    @property
    def flags(self) -> list[str]:
        return [v.flag for v in self.votes if v.flagged]


Verdicts = dict[str, dict[str, dict[str, str]]]  # model -> condition -> group -> verdict


def _vote(flag: str, verdicts: Verdicts, group: str, conditions: tuple[str, ...]) -> Vote:
    voters, yes = [], []
    for model in sorted(verdicts):
        seen = [verdicts[model].get(c, {}).get(group) for c in conditions if c in verdicts[model]]
        judged = [v for v in seen if v in JUDGED]
        if not judged:
            continue
        voters.append(model)
        if "correct" in judged:
            yes.append(model)
    return Vote(flag=flag, voters=tuple(voters), yes=tuple(yes), conditions=conditions)


def questions_for(modality: str) -> list[tuple[str, tuple[str, ...]]]:
    """The (flag, conditions) an audit asks about a group of this modality label."""
    asked = [(SHORTCUT, (TEXT_ONLY,))]
    if modality == "audio_visual":
        asked.append((REDUNDANT, (VISUAL_ONLY, AUDIO_ONLY)))
    elif modality == "visual":
        asked.append((MISLABELLED, (AUDIO_ONLY,)))
    elif modality == "auditory":
        asked.append((MISLABELLED, (VISUAL_ONLY,)))
    return asked


def audit_groups(verdicts: Verdicts, modalities: dict[str, str]) -> list[GroupAudit]:
    """Every group of ``modalities`` (sorted by uid) with its votes; a flag nobody could vote on
    (no run of its conditions) is left out of the group's votes."""
    present = {c for by_condition in verdicts.values() for c in by_condition}
    audits = []
    for group in sorted(modalities):
        votes = []
        for flag, conditions in questions_for(modalities[group]):
            if not present & set(conditions):
                continue
            votes.append(_vote(flag, verdicts, group, conditions))
        audits.append(GroupAudit(group=group, modality=modalities[group], votes=tuple(votes)))
    return audits


def flag_counts(audits: list[GroupAudit]) -> dict[str, int]:
    """Flagged groups per flag (every flag named, zeros included) and ``any``."""
    counts = dict.fromkeys(FLAGS, 0)
    for audit in audits:
        for flag in audit.flags:
            counts[flag] += 1
    counts["any"] = sum(1 for a in audits if a.flags)
    return counts

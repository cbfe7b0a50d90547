"""The audit's rules as pure functions: strict majority of the models with a judged verdict,
errors, review cases and unjudged answers no vote, which conditions each flag reads."""

from __future__ import annotations

from scoring.qa.audit_rules import (
    MISLABELLED,
    REDUNDANT,
    SHORTCUT,
    audit_groups,
    flag_counts,
    questions_for,
)

MODALITIES = {"g-av": "audio_visual", "g-vis": "visual", "g-aud": "auditory"}


def _flags(verdicts, modalities=MODALITIES):
    return {a.group: a.flags for a in audit_groups(verdicts, modalities)}


def test_language_shortcut_needs_a_strict_majority_of_judged_models():
    two_of_three = {
        "a": {"text_only": {"g-vis": "correct"}},
        "b": {"text_only": {"g-vis": "correct"}},
        "c": {"text_only": {"g-vis": "incorrect"}},
    }
    assert _flags(two_of_three)["g-vis"] == [SHORTCUT]
    half = {"a": {"text_only": {"g-vis": "correct"}}, "b": {"text_only": {"g-vis": "incorrect"}}}
    assert _flags(half)["g-vis"] == []
    # An error, a review case or an unjudged answer is no vote: one judged model decides.
    for other in ("error", "review", "unjudged", None):
        verdicts = {
            "a": {"text_only": {"g-vis": "correct"}},
            "b": {"text_only": {"g-vis": other} if other else {}},
        }
        (audit,) = [a for a in audit_groups(verdicts, MODALITIES) if a.group == "g-vis"]
        vote = next(v for v in audit.votes if v.flag == SHORTCUT)
        assert vote.voters == ("a",) and vote.yes == ("a",) and audit.flags == [SHORTCUT]
    nobody = {"a": {"text_only": {"g-vis": "error"}}}
    assert _flags(nobody)["g-vis"] == []
    # The full condition flags nothing.
    assert _flags({"a": {"full": {"g-vis": "correct"}}})["g-vis"] == []


def test_redundant_reads_either_single_modality_of_audio_visual_groups():
    verdicts = {
        "a": {"visual_only": {"g-av": "correct", "g-vis": "correct"},
              "audio_only": {"g-av": "incorrect", "g-vis": "incorrect"}},
        "b": {"visual_only": {"g-av": "incorrect"}, "audio_only": {"g-av": "correct"}},
        "c": {"visual_only": {"g-av": "incorrect"}, "audio_only": {"g-av": "error"}},
    }  # fmt: skip
    flags = _flags(verdicts)
    assert flags["g-av"] == [REDUNDANT]  # a (picture) and b (sound): 2 of 3
    assert flags["g-vis"] == []  # a visual group is never redundant
    # c's picture-only answer is judged, so c votes (no) even though its sound-only one failed.
    (av,) = [a for a in audit_groups(verdicts, MODALITIES) if a.group == "g-av"]
    assert av.votes[-1].voters == ("a", "b", "c") and av.votes[-1].yes == ("a", "b")


def test_mislabelled_reads_the_other_single_modality():
    verdicts = {
        "a": {"audio_only": {"g-vis": "correct", "g-aud": "correct"},
              "visual_only": {"g-vis": "incorrect", "g-aud": "incorrect"}},
    }  # fmt: skip
    assert _flags(verdicts) == {"g-av": [], "g-vis": [MISLABELLED], "g-aud": []}
    verdicts = {"a": {"visual_only": {"g-aud": "correct", "g-vis": "correct"}}}
    assert _flags(verdicts) == {"g-av": [], "g-vis": [], "g-aud": [MISLABELLED]}
    assert [f for f, _ in questions_for("visual")] == [SHORTCUT, MISLABELLED]
    assert dict(questions_for("auditory"))[MISLABELLED] == ("visual_only",)


def test_counts_and_flags_absent_without_their_conditions():
    verdicts = {"a": {"text_only": {"g-av": "correct", "g-vis": "correct", "g-aud": "incorrect"}}}
    audits = audit_groups(verdicts, MODALITIES)
    # No single-modality run: those flags are not even asked.
    assert all([v.flag for v in a.votes] == [SHORTCUT] for a in audits)
    assert flag_counts(audits) == {SHORTCUT: 2, REDUNDANT: 0, MISLABELLED: 0, "any": 2}

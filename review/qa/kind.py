"""The ``qa_review`` campaign kind (second paper, appendix D): one part per group, its payload,
and the registration with the campaign machinery (``review.campaigns.kinds``).

A payload is::

    {"decision": "accept" | "revise" | "reject" | "uncertain",
     "reasons": ["answer_wrong", …], "comment": "…",
     "media_unplayable": false, "evidence_unverifiable": false,
     "turns": [{"av_consistency": "pass" | "fail" | "unsure", "evidence_alignment": …,
                "modality_label": …, "structure": …}, …],          # one per turn, in order
     "edits": [{"field": "answer", "turn": 0, "evidence": null, "value": "…", "reason": "…"}]}

Rules: every decision but accept needs at least one reason (``other`` needs a comment); media
that will not play or evidence that cannot be verified forces ``uncertain`` (the group is never
treated as validated then); each turn gets all four checks; an edit names an existing target,
differs from the original and says why. Interval edits are in µs from the clip's start (what the
page shows; the page sends what was typed, read by ``studio.display.parse_timecode`` on the
clip's frames) and are stored on the source's timeline.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from django.core.exceptions import ValidationError

from review.qa.models import EVIDENCE_FIELDS, GROUP_FIELDS, TURN_FIELDS, EditField, QaGroup
from review.qa.schema import CATEGORY_RE, EVIDENCE_MODALITIES, MAX_TEXT, MODALITIES, STRUCTURES
from review.qa.selectors import group_of
from studio.vocabulary import label, vocabulary

KIND = "qa_review"
DECISIONS = ("accept", "revise", "reject", "uncertain")
DECISION_LABELS = {
    "accept": "Accept",
    "revise": "Request revision",
    "reject": "Reject",
    "uncertain": "Uncertain",
}
REASONS = (
    ("answer_wrong", "The reference answer is wrong or unsupported"),
    ("question_unclear", "The question is ambiguous or leaks the answer"),
    ("options_invalid", "The answer options are invalid or duplicated"),
    ("evidence_misaligned", "The evidence intervals do not hold what they describe"),
    ("modality_wrong", "The modality labels are wrong"),
    ("structure_wrong", "The structure is wrong (Chain path, Loop closure)"),
    ("media_problem", "The media will not play"),
    ("evidence_unverifiable", "The evidence cannot be verified from the media"),
    ("other", "Something else (say what in the comment)"),
)
REASON_CODES = tuple(code for code, _ in REASONS)
CHECKS = ("av_consistency", "evidence_alignment", "modality_label", "structure")
CHECK_VALUES = ("pass", "fail", "unsure")
vocabulary("qa_decision", DECISION_LABELS, title="Decision")
vocabulary("qa_reason", REASONS, title="Reason")
# The checks' short names (reports, errors); check_labels() says what each asks on the page.
vocabulary(
    "qa_check",
    {
        "av_consistency": "Audio-video consistency",
        "evidence_alignment": "Evidence alignment",
        "modality_label": "Modality labels",
        "structure": "Structure",
    },
    title="Check",
)
vocabulary("qa_check_value", {"pass": "Pass", "fail": "Fail", "unsure": "Unsure"}, title="Result")
MAX_EDITS = 20


def _with_article(word: str) -> str:
    """ "a Node", "an Edge"."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def check_labels(structure: str) -> dict[str, str]:
    """What each per-turn check asks, with the structure rule of the group's structure."""
    structure_rule = {
        "chain": "Structure right: the turns form an open dependency path (Chain)",
        "loop": "Structure right: the feedback closes the loop (Loop)",
    }.get(structure, f"Structure right: {_with_article(label('qa_structure', structure))} question")
    return {
        "av_consistency": "Audio and video agree with the question and answer",
        "evidence_alignment": "The evidence intervals hold the evidence described",
        "modality_label": "The modality labels are right",
        "structure": structure_rule,
    }


def _target_value(group: QaGroup, field: str, turn, evidence):
    """The original value of an edit's target, or a ValidationError message."""
    if field in GROUP_FIELDS:
        if turn is not None or evidence is not None:
            raise ValueError(f"{field} is a group field: give no turn or evidence")
        return getattr(group, field)
    turns = {t.position: t for t in group.turns.all()}
    if not isinstance(turn, int) or isinstance(turn, bool) or turn not in turns:
        raise ValueError(f"turn must be one of 0 … {group.turn_count - 1}")
    row = turns[turn]
    if field in TURN_FIELDS:
        if evidence is not None:
            raise ValueError(f"{field} is a turn field: give no evidence")
        return getattr(row, field)
    items = {e.position: e for e in row.evidence.all()}
    if not isinstance(evidence, int) or isinstance(evidence, bool) or evidence not in items:
        raise ValueError(f"evidence must be one of the turn's intervals (0 … {len(items) - 1})")
    ev = items[evidence]
    return {
        "interval": [ev.start_us, ev.end_us],
        "evidence_modality": ev.modality,
        "description": ev.description,
    }[field]


def _typed_interval(group: QaGroup, text: str) -> list[int]:
    """An interval typed on the clip ("1.2-2.5", "0:01.200 - 0:02.500", "#36-#75"): each end
    read by ``studio.display.parse_timecode`` on the clip's own frames (numbered from 0, times
    from the clip's start), as [start, end] in µs from the clip's start."""
    from studio.display import parse_timecode

    parts = [p.strip() for p in re.split(r"\s*[-\u2013]\s*(?=[#\d.:])", text.strip(), maxsplit=1)]
    if len(parts) != 2:
        raise ValueError("an interval is start-end on the clip, e.g. 1.2-2.5 or #36-#75")
    start, end = group.span_start_us, group.span_end_us
    times = [int(t) - start for t in group.video.frame_times_us() if start <= t < end]
    try:
        return [parse_timecode(p, frame_times_us=times, duration_us=end - start) for p in parts]
    except ValueError as exc:
        raise ValueError(f"interval: {exc}") from None


def _clean_value(group: QaGroup, field: str, value):
    text_fields = ("question", "answer", "description")
    if field in text_fields:
        if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT:
            raise ValueError(f"a new {field} is non-empty text of at most {MAX_TEXT} characters")
        return value.strip()
    if field == "options":
        if value is None:
            return None
        if (
            not isinstance(value, list)
            or len(value) < 2
            or not all(isinstance(o, str) and o.strip() for o in value)
            or len({o.strip() for o in value}) != len(value)
        ):
            raise ValueError("options are null or at least 2 different texts")
        return [o.strip() for o in value]
    if field == "interval":
        if isinstance(value, str):
            value = _typed_interval(group, value)
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            raise ValueError("an interval is [start, end] in whole µs from the clip's start")
        start, end = (group.span_start_us + v for v in value)
        if not 0 <= start < end <= group.video.duration_us:
            raise ValueError("the interval must lie inside the video and end after it starts")
        return [start, end]
    choices = {
        "evidence_modality": EVIDENCE_MODALITIES,
        "structure": STRUCTURES,
        "modality": MODALITIES,
    }
    if field in choices:
        if value not in choices[field]:
            raise ValueError(f"{field} is one of {', '.join(choices[field])}")
        return value
    if field == "category":
        if not isinstance(value, str) or not CATEGORY_RE.match(value):
            raise ValueError("a category is a lower-case name (letters, digits, _)")
        return value
    raise ValueError(f"unknown field {field!r}")  # pragma: no cover - fields checked first


def clean_edits(group: QaGroup, edits) -> list[dict]:
    """Cleaned edits with their originals; ValidationError naming each bad one."""
    if edits is None:
        return []
    if not isinstance(edits, list) or len(edits) > MAX_EDITS:
        raise ValidationError({"edits": f"Send a list of at most {MAX_EDITS} edits."})
    problems: list[str] = []
    cleaned = []
    for i, edit in enumerate(edits, start=1):
        if not isinstance(edit, Mapping):
            problems.append(f"edit {i}: must be an object")
            continue
        field = edit.get("field")
        if field not in EditField.values:
            problems.append(f"edit {i}: field is one of {', '.join(EditField.values)}")
            continue
        turn, evidence = edit.get("turn"), edit.get("evidence")
        if field in EVIDENCE_FIELDS and evidence is None:
            problems.append(f"edit {i}: name the evidence interval")
            continue
        try:
            original = _target_value(group, field, turn, evidence)
            value = _clean_value(group, field, edit.get("value"))
        except ValueError as exc:
            problems.append(f"edit {i}: {exc}")
            continue
        if value == original:
            problems.append(f"edit {i}: the proposed value is the original")
            continue
        reason = edit.get("reason")
        if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_TEXT:
            problems.append(f"edit {i}: say why (a reason of at most {MAX_TEXT} characters)")
            continue
        cleaned.append(
            {
                "field": field,
                "turn": turn if field not in GROUP_FIELDS else None,
                "evidence": evidence if field in EVIDENCE_FIELDS else None,
                "original": original,
                "value": value,
                "reason": reason.strip(),
            }
        )
    if problems:
        raise ValidationError({"edits": problems})
    return cleaned


def clean_payload(*, group: QaGroup, payload, complete: bool) -> dict:
    if not isinstance(payload, Mapping):
        raise ValidationError({"payload": "Must be an object."})
    errors: dict[str, list[str]] = {}
    decision = payload.get("decision") or ""
    reasons = payload.get("reasons") or []
    comment = payload.get("comment") or ""
    unplayable = payload.get("media_unplayable") is True
    unverifiable = payload.get("evidence_unverifiable") is True
    if decision not in DECISIONS and (complete or decision):
        errors.setdefault("decision", []).append(
            "Choose accept, request revision, reject or uncertain."
        )
    if not isinstance(reasons, list) or not all(r in REASON_CODES for r in reasons):
        errors.setdefault("reasons", []).append(
            f"Reasons are codes from {', '.join(REASON_CODES)}."
        )
        reasons = []
    if not isinstance(comment, str) or len(comment) > MAX_TEXT:
        errors.setdefault("comment", []).append(f"A comment is at most {MAX_TEXT} characters.")
        comment = ""
    reasons = set(reasons)
    if unplayable:
        reasons.add("media_problem")
    if unverifiable:
        reasons.add("evidence_unverifiable")
    if complete:
        if (unplayable or unverifiable) and decision != "uncertain":
            errors.setdefault("decision", []).append(
                "Media that will not play or evidence that cannot be verified stays uncertain."
            )
        if decision == "accept" and reasons:
            errors.setdefault("reasons", []).append("An accepted group takes no reasons.")
        if decision in ("revise", "reject", "uncertain") and not reasons:
            errors.setdefault("reasons", []).append("Give at least one reason for this decision.")
        if "other" in reasons and not comment.strip():
            errors.setdefault("comment", []).append("Say what the other reason is.")
    turns = payload.get("turns") or []
    cleaned_turns = []
    if not isinstance(turns, list) or len(turns) > group.turn_count:
        errors.setdefault("turns", []).append(
            f"Send one set of checks per turn ({group.turn_count})."
        )
        turns = []
    for t in range(group.turn_count):
        given = turns[t] if t < len(turns) and isinstance(turns[t], Mapping) else {}
        row = {}
        for check in CHECKS:
            value = given.get(check) or ""
            if value not in CHECK_VALUES:
                if complete or value:
                    errors.setdefault(f"turns.{t}.{check}", []).append(
                        "Choose pass, fail or unsure."
                    )
                value = ""
            row[check] = value
        cleaned_turns.append(row)
    edits: list = []
    if complete:
        try:
            edits = clean_edits(group, payload.get("edits"))
        except ValidationError as exc:
            for k, v in exc.message_dict.items():
                errors.setdefault(k, []).extend(v)
    else:
        raw = payload.get("edits") or []
        if not isinstance(raw, list):
            errors.setdefault("edits", []).append(f"Send a list of at most {MAX_EDITS} edits.")
            raw = []
        edits = [dict(e) for e in raw if isinstance(e, Mapping)][:MAX_EDITS]
    if errors:
        raise ValidationError(errors)
    return {
        "decision": decision,
        "reasons": sorted(reasons),
        "comment": comment.strip() if complete else comment,
        "media_unplayable": unplayable,
        "evidence_unverifiable": unverifiable,
        "turns": cleaned_turns,
        "edits": edits,
    }


def validate(*, assignment, part, payload) -> dict:
    return clean_payload(group=group_of(assignment), payload=payload, complete=True)


def validate_draft(*, assignment, part, payload) -> dict:
    return clean_payload(group=group_of(assignment), payload=payload, complete=False)


def group_steps(items) -> dict[int, set]:
    """The steps a group's reference answers speak about (the exposure rule): every release
    step on the group's video whose ``[start, end)`` overlaps the group's span."""
    from annotation.models import ReleaseStep
    from review.qa.models import QaManifestSource

    items = list(items)
    sources = dict(
        QaManifestSource.objects.filter(
            manifest_id__in={item.sample.manifest_id for item in items}
        ).values_list("manifest_id", "group_set_id")
    )
    groups = {
        (g.group_set_id, g.uid): g
        for g in QaGroup.objects.filter(
            group_set_id__in=set(sources.values()),
            uid__in={item.sample.sample_id for item in items},
        ).select_related("video")
    }
    spans: dict[str, list] = {}
    for sha, start, end, uid in ReleaseStep.objects.filter(
        video_sha256__in={g.video.sha256 for g in groups.values()}
    ).values_list("video_sha256", "start_us", "end_us", "sample_id"):
        spans.setdefault(sha, []).append((start, end, uid))
    out: dict[int, set] = {}
    for item in items:
        group = groups.get((sources.get(item.sample.manifest_id), item.sample.sample_id))
        if group is None:
            out[item.pk] = set()
            continue
        out[item.pk] = {
            uid
            for start, end, uid in spans.get(group.video.sha256, ())
            if start < group.span_end_us and group.span_start_us < end
        }
    return out


def no_exclusions(*, campaign, items, people):
    """QA groups come from a generator, not from people here: nobody is excluded."""
    return ()


def register() -> None:
    from django.urls import reverse

    from review.campaigns.kinds import CampaignKind, campaign_kind_register
    from review.manifests.services import bundle_zip_register
    from review.qa.sampling import qa_manifest_zip
    from review.qa.services import qa_edits_store
    from studio.roles import AUDITOR

    campaign_kind_register(
        CampaignKind(
            name=KIND,
            label="QA-group review",
            per_item=1,
            validate=validate,
            validate_draft=validate_draft,
            exclusions=no_exclusions,
            on_submit=qa_edits_store,
            shows_references=True,
            item_steps=group_steps,
            page_url=lambda assignment: reverse("qa:item", args=[assignment.token]),
            roles=(AUDITOR,),
            manifest_kinds=(KIND,),
        )
    )
    bundle_zip_register(KIND, qa_manifest_zip)

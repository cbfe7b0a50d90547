"""What each judge does with a parsed reply: every candidate answered exactly once, every value in
range, and the derived checks (the Next band, the QA constraint). A reply that answers a
candidate twice, leaves one out or names one that was not asked is a parse failure for the whole
call: no score of it is kept."""

from __future__ import annotations

from scoring.models import Judgement, Run, RunItem
from scoring.packages import NEXT_BANDS, ParseFailure
from scoring.runs.execute import Request
from scoring.runs.media import media_payload


def _asked(item: RunItem) -> list[str]:
    """The anonymous ids the call asked about (from the data it sent: no query)."""
    data = item.input
    if "items" in data:
        return [i["blind_id"] for i in data["items"]]
    return [c["candidate_id"] for c in data.get("candidates", [])]


def _match_ids(item: RunItem, answered: list[str]) -> None:
    expected = sorted(_asked(item))
    if sorted(answered) != expected:
        twice = sorted({a for a in answered if answered.count(a) > 1})
        missing = sorted(set(expected) - set(answered))
        extra = sorted(set(answered) - set(expected))
        parts = [
            f"{label}: {', '.join(ids)}"
            for label, ids in (
                ("answered twice", twice),
                ("missing", missing),
                ("not asked", extra),
            )
            if ids
        ]
        raise ParseFailure(
            "the reply does not answer every candidate exactly once (" + "; ".join(parts) + ")"
        )


def _one(item: RunItem, candidate_id: str) -> dict:
    return {"item_id": item.pk, "candidate_id": candidate_id}


class _Judge:
    purpose = ""

    def prepare(self, run: Run, item: RunItem) -> Request:
        return Request(data=item.input)

    def failed(self, run: Run, item: RunItem, outcome: str) -> list:
        return [(Judgement, {"item_id": item.pk}, {"outcome": outcome})]


class ReferenceJudge(_Judge):
    purpose = "reference_judge"

    def accept(self, run, item, reply):
        _match_ids(item, [e.candidate_id for e in reply.evaluations])
        updates = []
        for e in reply.evaluations:
            low, high = NEXT_BANDS[e.next_plan_match_type]
            updates.append(
                (
                    Judgement,
                    _one(item, e.candidate_id),
                    {
                        "outcome": "ok",
                        "local": e.local_intent_score,
                        "procedural": e.procedural_intent_score,
                        "next": e.next_plan_score,
                        "match_type": e.next_plan_match_type,
                        "band_consistent": low <= e.next_plan_score <= high,
                        "justification": e.brief_reason,
                    },
                )
            )
        return {}, updates


class VideoJudge(_Judge):
    purpose = "video_judge"

    def prepare(self, run, item):
        payload = media_payload(item.media, interface=run.endpoint.media)
        data = {
            **item.input,
            "observation": {"kind": "images" if payload.interface == "frames" else "video"},
        }
        return Request(data, payload)

    def accept(self, run, item, reply):
        _match_ids(item, [e.candidate_id for e in reply.evaluations])
        return {}, [
            (
                Judgement,
                _one(item, e.candidate_id),
                {"outcome": "ok", "gf": e.gf, "hic": e.hic, "tpc": e.tpc, "npf": e.npf},
            )
            for e in reply.evaluations
        ]


class BlindRater(_Judge):
    purpose = "blind_rater"

    def accept(self, run, item, reply):
        _match_ids(item, [e.blind_id for e in reply.evaluations])
        updates = []
        for e in reply.evaluations:
            updates.append(
                (
                    Judgement,
                    _one(item, e.blind_id),
                    {
                        "outcome": "ok",
                        "local": e.local_score_0_100,
                        "procedural": e.procedural_score_0_100,
                        "next": e.next_plan_score_0_100,
                        "reasons": {
                            "local": e.local_reason_code,
                            "procedural": e.procedural_reason_code,
                            "next": e.next_plan_reason_code,
                        },
                        "justification": e.brief_reason,
                    },
                )
            )
        return {}, updates


class QaJudge(_Judge):
    purpose = "qa_judge"

    def accept(self, run, item, reply):
        consistent = 4 <= reply.score <= 5 if reply.correct else reply.score <= 3
        return {}, [
            (
                Judgement,
                {"item_id": item.pk},
                {
                    "outcome": "ok",
                    "correct": reply.correct,
                    "score": reply.score,
                    "review": not consistent,
                    "justification": reply.justification,
                },
            )
        ]


JUDGE_HANDLERS = {
    "reference": ReferenceJudge,
    "video": VideoJudge,
    "rater": BlindRater,
    "qa": QaJudge,
}

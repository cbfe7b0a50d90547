"""One open assignment of each of the five campaign kinds, for the tests of the draft and submit
endpoints: the kind's item page URLs, the review API's, and a valid payload per part.

Built from the worlds of each kind (real files where the kind needs them): the judge-validation
world first (its design takes every step of its release), then the audit world's video with an
audit, a boundary audit and a human baseline over its release, then a QA review. Each kind has
its own person, so no two campaigns of one person share a step."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.urls import reverse

from review.boundary.kind import KIND as BOUNDARY
from review.boundary.media import available_windows
from review.campaigns.models import Assignment, Exposure, Submission
from review.campaigns.services import campaign_create, claim_next
from review.manifests.services import design_create, manifest_freeze
from review.qa.kind import CHECKS
from review.qa.models import QaEdit
from review.qa.selectors import group_for_sample
from tests.conftest import _user
from tests.review.audit_world import answers
from tests.review.baseline.world import dims
from tests.review.boundary_world import build_boundary_world
from tests.review.judgeval_world import build_world as build_judgeval_world
from tests.review.qa.world import build_qa_world

NAMESPACE = {
    "audit": "audit",
    "boundary": "boundary",
    "human_baseline": "baseline",
    "judge_validation": "judgeval",
    "qa_review": "qa",
}


@dataclass
class Open:
    """A person's leased assignment of one kind and what a valid submission of it is."""

    kind: str
    person: object
    assignment: object
    payloads: dict  # part -> a valid payload
    fixed_part: bool  # the item page takes the part from its URL's kind, not from the body
    urls: dict = field(default_factory=dict)

    @property
    def parts(self) -> list[str]:
        return list(self.payloads)

    def snapshot(self) -> tuple:
        """Everything a draft or a submission of this assignment could write."""
        row = Assignment.objects.filter(pk=self.assignment.pk).values(
            "draft", "draft_saved_at", "state", "lease_expires_at", "committed", "done_at"
        )[0]
        return (
            row,
            Submission.objects.filter(assignment=self.assignment).count(),
            QaEdit.objects.count(),
            Exposure.objects.filter(assignment=self.assignment).count(),
        )


def _open(kind, person, campaign, payloads, fixed_part) -> Open:
    assignment = claim_next(campaign=campaign, person=person)
    assert assignment is not None, kind
    namespace = NAMESPACE[kind]
    token = assignment.token
    urls = {
        "page-draft": reverse(f"{namespace}:item-draft", args=[token]),
        "page-submit": reverse(f"{namespace}:item-submit", args=[token]),
        "api-draft": reverse("review:assignment-draft", args=[token]),
        "api-submit": reverse("review:assignment-submit", args=[token]),
    }
    return Open(kind, person, assignment, payloads, fixed_part, urls)


def build_open_assignments(*, tmp_path, admin, annotator, make_video, source) -> dict[str, Open]:
    User = type(admin)
    rater = _user(User, "pia-rater", "rater")
    raters = [rater, _user(User, "pia-rater-b", "rater"), _user(User, "pia-c", "rater")]
    judgeval = build_judgeval_world(
        make_video=make_video, admin=admin, annotator=annotator, raters=raters
    )
    auditor = _user(User, "pia-auditor", "auditor")
    boundary = build_boundary_world(
        tmp_path=tmp_path, admin=admin, annotator=annotator, reviewers=[auditor], source=source,
        per_item=1,
    )  # fmt: skip
    baseline_rater = _user(User, "pia-baseline", "rater")
    design = design_create(
        author=admin, name="payload_baseline", method="stratified", release=boundary.release,
        seed=3, params={"target_n": 4}, kind="human_baseline",
    )  # fmt: skip
    manifest = manifest_freeze(design=design, author=admin)
    baseline = campaign_create(
        name="payload-baseline", kind="human_baseline", manifest=manifest,
        people=[baseline_rater], per_item=1, author=admin,
    )  # fmt: skip
    qa_reviewer = _user(User, "pia-qa", "auditor")
    qa = build_qa_world(tmp_path=tmp_path, admin=admin, reviewers=[qa_reviewer])

    opened = {}
    opened["audit"] = _open(
        "audit", auditor, boundary.audit_campaign,
        {"phase1": answers("phase1"), "phase2": answers("phase2")}, fixed_part=False,
    )  # fmt: skip
    b = _open(BOUNDARY, auditor, boundary.campaign, {}, fixed_part=True)
    windows = available_windows(b.assignment.item.sample.release_step)
    b.payloads[""] = {"windows": {w: {"label": "valid", "comment": ""} for w in windows}}
    opened[BOUNDARY] = b
    opened["human_baseline"] = _open(
        "human_baseline", baseline_rater, baseline, {"response": dims()}, fixed_part=True
    )
    scores = {"local": 80, "procedural": 65, "next": 40, "reason": ""}
    opened["judge_validation"] = _open(
        "judge_validation", rater, judgeval.campaign, {"first": scores, "second": dict(scores)},
        fixed_part=False,
    )  # fmt: skip
    q = _open("qa_review", qa_reviewer, qa.campaign, {}, fixed_part=True)
    group = group_for_sample(q.assignment.item.sample)
    q.payloads[""] = {
        "decision": "accept",
        "turns": [dict.fromkeys(CHECKS, "pass") for _ in range(group.turn_count)],
    }
    opened["qa_review"] = q
    return opened

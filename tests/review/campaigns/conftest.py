"""Campaign fixtures: a frozen 10-sample manifest, test-only kinds, named reviewers, a clock."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError

from annotation.releases import release_freeze
from review.campaigns.kinds import CampaignKind, campaign_kind_register, campaign_kind_unregister
from review.manifests.services import design_create, manifest_freeze
from studio import services as studio_services
from tests.conftest import _user
from tests.review.factories import build_dataset

SEED = 20260412


def validate_answer(*, assignment, part, payload):
    """The trivial kind's rule: {"answer": "yes"|"no"} and nothing else."""
    if not isinstance(payload, dict) or set(payload) != {"answer"}:
        raise ValidationError({"payload": 'Send {"answer": "yes" | "no"}.'})
    if payload["answer"] not in ("yes", "no"):
        raise ValidationError({"answer": "yes or no"})
    return {"answer": payload["answer"]}


@pytest.fixture
def trivial_kind():
    kind = CampaignKind(
        name="trivial",
        label="Trivial (tests only)",
        per_item=3,
        validate=validate_answer,
        page_url=lambda assignment: f"/trivial/{assignment.token}/",
    )
    campaign_kind_register(kind)
    yield kind
    campaign_kind_unregister("trivial")


@pytest.fixture
def two_part_kind():
    kind = CampaignKind(
        name="twopart",
        label="Two parts (tests only)",
        parts=("one", "two"),
        validate=validate_answer,
    )
    campaign_kind_register(kind)
    yield kind
    campaign_kind_unregister("twopart")


@pytest.fixture
def dataset(db, annotator):
    """The factories' steps, created by ``annotator``."""
    return build_dataset(author=annotator)


@pytest.fixture
def make_manifest(dataset, admin_user):
    release = release_freeze(name="campaign_release", author=admin_user)

    def make(n: int = 10, name: str = "m10"):
        design = design_create(
            author=admin_user, name=name, method="stratified", release=release, seed=SEED,
            params={"target_n": n, "cover": []}, kind="audit",
        )  # fmt: skip
        return manifest_freeze(design=design, author=admin_user)

    return make


@pytest.fixture
def manifest10(make_manifest):
    manifest = make_manifest(10)
    assert manifest.sample_count == 10
    return manifest


@pytest.fixture
def reviewers(db, django_user_model):
    def make(n: int, prefix: str = "reviewer"):
        return [_user(django_user_model, f"{prefix}{i:02d}") for i in range(n)]

    return make


@pytest.fixture
def clock(monkeypatch):
    """Moves the project's one clock."""
    state = {"now": studio_services.now()}
    monkeypatch.setattr(studio_services, "now", lambda: state["now"])

    def advance(seconds: float) -> None:
        state["now"] += timedelta(seconds=seconds)

    return advance

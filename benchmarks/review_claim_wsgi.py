"""The WSGI application of benchmarks/review_claim.py: the project's own, plus a benchmark-only
campaign kind ("bench": one part, payload {"answer": "yes"|"no"}) so the server accepts the
benchmark's submissions before any real kind is chosen. Not part of the product."""

from django.core.exceptions import ValidationError

from studio.wsgi import application  # noqa: F401  (sets Django up)


def _validate(*, assignment, part, payload):
    if not isinstance(payload, dict) or payload.get("answer") not in ("yes", "no"):
        raise ValidationError({"answer": "yes or no"})
    return {"answer": payload["answer"]}


def register() -> None:
    from review.campaigns.kinds import CampaignKind, campaign_kind_register

    campaign_kind_register(
        CampaignKind(name="bench", label="Benchmark (not a product kind)", per_item=3,
                     validate=_validate)
    )  # fmt: skip


register()

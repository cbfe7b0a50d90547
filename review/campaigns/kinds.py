"""The kind registry: what a kind of campaign work plugs into the generic machinery.

A kind registers itself from its app's ``AppConfig.ready()`` (the audit in ``review.audit``)::

    campaign_kind_register(CampaignKind(
        name="audit", label="Annotation audit", per_item=3, parts=("phase1", "phase2"),
        validate=validate_audit_part, page_url=lambda a: reverse("audit:item", args=[a.token]),
    ))

Everything else (claims, leases, order, drafts, supersession, exposure, progress) is generic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError


def annotated_or_revised(*, campaign, items, people) -> Iterable[tuple[int, int, str]]:
    """The default exclusion rule: nobody takes an item whose step they created or revised.

    Yields ``(person_id, item_id, reason)``. An item whose release step has no live step on this
    instance (an imported release) has no known authors, so nobody is excluded from it."""
    from annotation.selectors import step_author_ids

    people_ids = {p.pk for p in people}
    by_step: dict[int, list] = {}
    for item in items:
        step_id = item.sample.release_step.step_id
        if step_id is not None:
            by_step.setdefault(step_id, []).append(item)
    authors = step_author_ids(step_ids=list(by_step))
    for step_id, step_items in by_step.items():
        for person_id in sorted(authors.get(step_id, set()) & people_ids):
            for item in step_items:
                yield person_id, item.pk, "annotated or revised this step"


def sample_steps(items) -> dict[int, set]:
    """The default ``item_steps``: an item of a step manifest is about its one step, named by the
    step's uid (the sample id, stable across releases)."""
    return {item.pk: {item.sample.sample_id} for item in items}


def _accept_any(*, assignment, part: str, payload: Mapping) -> dict:
    if not isinstance(payload, Mapping):
        raise ValidationError({"payload": "Must be an object."})
    return dict(payload)


@dataclass(frozen=True)
class CampaignKind:
    """A kind of campaign work.

    - ``per_item``: how many distinct people judge an item unless the campaign says otherwise.
    - ``parts``: the parts an assignment is submitted in, in order (one unnamed part by default;
      the audit has ``("phase1", "phase2")``). A part can only be submitted after the previous
      ones; the assignment is done when the last one is.
    - ``validate(assignment=, part=, payload=) -> dict``: the cleaned payload, or a
      ValidationError (nothing is written then).
    - ``validate_draft(assignment=, part=, payload=) -> dict``: optional; drafts are stored as
      they come (any JSON object up to ``DRAFT_MAX_BYTES``) when it is None.
    - ``exclusions(campaign=, items=, people=)``: yields ``(person_id, item_id, reason)`` pairs
      that must never be leased; default ``annotated_or_revised``.
    - ``on_submit(submission=)``: optional; runs inside the submission's transaction after every
      submission and supersession of the kind, whichever way it came (the item page, the API):
      a kind's own records of it (QA review stores the proposed edits).
    - ``page_url(assignment) -> str``: where the person works on an assignment (opaque token).
    - ``roles``: roles a person needs to take part (empty: any signed-in user).
    - ``manifest_kinds``: manifest kinds a campaign of this kind accepts (empty: any).
    - ``answers_blind``: its people answer each step's questions without its references (the
      human baseline); ``shows_references``: its pages show a step's reference answers (the
      audit, judge validation, the boundary audit, QA review). The exposure rule
      (``review.campaigns.exposure``) keeps the two apart per person and step.
    - ``item_steps(items) -> {item_id: {step uid}}``: the steps an item is about (default: the
      sample's step; a QA group: the steps its span overlaps).
    """

    name: str
    label: str
    per_item: int = 1
    parts: tuple[str, ...] = ("",)
    validate: Callable[..., dict] = _accept_any
    validate_draft: Callable[..., dict] | None = None
    exclusions: Callable[..., Iterable[tuple[int, int, str]]] = annotated_or_revised
    on_submit: Callable[..., None] | None = None
    page_url: Callable[[object], str] = field(default=lambda assignment: "")
    roles: tuple[str, ...] = ()
    manifest_kinds: tuple[str, ...] = ()
    answers_blind: bool = False
    shows_references: bool = False
    item_steps: Callable[..., dict[int, set]] = sample_steps

    def next_part(self, done_parts: Iterable[str]) -> str | None:
        """The first part not yet submitted, or None when all are."""
        done = set(done_parts)
        for part in self.parts:
            if part not in done:
                return part
        return None


_KINDS: dict[str, CampaignKind] = {}


def campaign_kind_register(kind: CampaignKind) -> None:
    """Register a kind; registering the same name again replaces it (tests re-register)."""
    if not kind.parts or len(set(kind.parts)) != len(kind.parts):
        raise ValueError(f"kind {kind.name}: parts must be distinct and at least one")
    _KINDS[kind.name] = kind


def campaign_kind_unregister(name: str) -> None:
    _KINDS.pop(name, None)


def campaign_kind(name: str) -> CampaignKind:
    """The registered kind, or a ValidationError naming the ones that exist."""
    try:
        return _KINDS[name]
    except KeyError:
        known = ", ".join(sorted(_KINDS)) or "none"
        message = f"Unknown campaign kind {name!r} (known: {known})."
        raise ValidationError({"kind": message}) from None


def campaign_kinds() -> list[CampaignKind]:
    return [_KINDS[name] for name in sorted(_KINDS)]

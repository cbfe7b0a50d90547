"""Writes of the audit beyond the campaign's own: adjudications, typed corrections (through
``annotation.services``) and the corrected release."""

from __future__ import annotations

from collections.abc import Mapping

from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.models import MicroStep, StepRevision
from review.audit.criteria import ADJUDICATION_LABELS, CORRECTION_CODES
from review.audit.decisions import AUDIT, Scheme, campaign_records, needs_adjudication
from review.audit.models import Adjudication, Correction
from studio.services import now


@transaction.atomic
def adjudicate(
    *,
    campaign,
    item,
    adjudicator,
    labels: Mapping[str, str],
    comment: str = "",
    scheme: Scheme = AUDIT,
) -> list:
    """Record the adjudicator's valid/invalid for criteria (or, with the boundary scheme,
    windows) of ``item`` that wait for one.

    Refuses (nothing written) a key that does not wait, or a label other than valid or
    invalid. A second adjudication of the same key supersedes the first (both kept)."""
    record = campaign_records(campaign, item_ids=[item.pk], scheme=scheme)[item.pk]
    waiting = set(needs_adjudication(record, campaign.per_item, scheme))
    errors = {}
    for cid, label in labels.items():
        if label not in ADJUDICATION_LABELS:
            errors[cid] = "An adjudicator answers valid or invalid."
        elif cid not in waiting and cid not in record.adjudications:
            errors[cid] = f"This {scheme.key_field} does not wait for adjudication."
    if not labels:
        errors["labels"] = "Choose valid or invalid for at least one criterion."
    if errors:
        raise ValidationError(errors)
    at = now()
    rows = []
    for cid, label in sorted(labels.items()):
        previous = Adjudication.objects.filter(
            item=item, criterion=cid, superseded_by__isnull=True
        ).first()
        if previous is not None and previous.label == label:
            continue
        rows.append(
            Adjudication.objects.create(
                campaign=campaign,
                item=item,
                criterion=cid,
                label=label,
                comment=comment.strip(),
                adjudicator=adjudicator,
                created_at=at,
                supersedes=previous,
            )
        )
    return rows


def _reason(campaign, item, kind: str, note: str) -> str:
    text = f"Audit correction ({kind}): campaign {campaign.name}, item {item.pk}"
    return f"{text}. {note.strip()}" if note.strip() else text + "."


@transaction.atomic
def correction_apply(
    *, campaign, item, author, kind: str, values: Mapping, note: str = ""
) -> Correction:
    """Apply one typed correction (paper table 9) to the live step of an audited item. The
    author is an adjudicator or an admin (``selectors.may_correct``).

    ``values`` by kind: ``move_cutoff`` {cutoff_us} (and optionally outcome_us),
    ``split_step`` {at_us}, ``revise_local`` / ``revise_procedural`` / ``revise_next`` {text},
    ``add_plausible`` {text}. The step changes through ``annotation.services`` as a revision of
    action ``correct`` (``split`` for a split) whose reason names the campaign and item; nothing
    is deleted."""
    from annotation.services import step_split, step_update
    from review.audit.selectors import may_correct

    if not may_correct(author):
        raise ValidationError(
            {"author": "Corrections are recorded by adjudicators and admins only."}
        )
    if kind not in CORRECTION_CODES:
        raise ValidationError(
            {"kind": f"Unknown correction {kind!r}; use {', '.join(CORRECTION_CODES)}."}
        )
    release_step = item.sample.release_step
    if release_step.step_id is None:
        raise ValidationError("This step is not on this instance (the release was imported).")
    step = MicroStep.objects.select_related("video").get(pk=release_step.step_id)
    reason = _reason(campaign, item, kind, note)
    new_step = None

    def need(key, kind_of=str):
        value = values.get(key)
        if (
            not isinstance(value, kind_of)
            or isinstance(value, bool)
            or (kind_of is str and not value.strip())
        ):
            raise ValidationError({key: "Required." if value in (None, "") else "Wrong type."})
        return value

    if kind == "move_cutoff":
        change = {"cutoff_us": need("cutoff_us", int)}
        if "outcome_us" in values:
            change["outcome_us"] = need("outcome_us", int)
        elif change["cutoff_us"] > step.outcome_us:
            change["outcome_us"] = change["cutoff_us"]
        step = step_update(
            step=step,
            author=author,
            version=step.version,
            values=change,
            reason=reason,
            action=StepRevision.Action.CORRECT,
        )
    elif kind == "split_step":
        step, new_step = step_split(
            step=step, author=author, version=step.version, at_us=need("at_us", int), reason=reason
        )
    elif kind == "add_plausible":
        text = need("text").strip()
        if text in step.plausible_next_steps:
            raise ValidationError({"text": "This next action is listed already."})
        step = step_update(
            step=step,
            author=author,
            version=step.version,
            values={"plausible_next_steps": [*step.plausible_next_steps, text]},
            reason=reason,
            action=StepRevision.Action.CORRECT,
        )
    else:
        field = {
            "revise_local": "local_intent",
            "revise_procedural": "procedural_intent",
            "revise_next": "next_step",
        }[kind]
        before = step.version
        step = step_update(
            step=step,
            author=author,
            version=step.version,
            values={field: need("text")},
            reason=reason,
            action=StepRevision.Action.CORRECT,
        )
        if step.version == before:
            raise ValidationError({"text": "The text is unchanged."})
    revision = StepRevision.objects.filter(step=step).order_by("-version").first()
    return Correction.objects.create(
        campaign=campaign,
        item=item,
        kind=kind,
        note=note.strip(),
        author=author,
        created_at=now(),
        revision=revision,
        new_step=new_step,
    )


def corrected_release_freeze(*, campaign, name: str, author, note: str = ""):
    """Freeze the corrected release (admins only): a correction of the audited release (its
    parent), made by the existing correction path (``annotation.releases.release_correct``)."""
    from annotation.releases import release_correct
    from studio.roles import is_admin

    if not is_admin(author):
        raise ValidationError({"author": "Only an admin freezes a release."})
    if not Correction.objects.filter(campaign=campaign).exists():
        raise ValidationError("No correction was made in this campaign yet.")
    text = note or f"Corrections of audit campaign {campaign.name}."
    return release_correct(parent=campaign.manifest.release, name=name, author=author, note=text)

"""Reads of QA groups: the group behind a campaign sample, groups of a set, edits to review."""

from __future__ import annotations

from django.http import Http404

from review.qa.models import QaEdit, QaGroup, QaGroupSet, QaManifestSource


def group_for_sample(sample) -> QaGroup:
    """The QA group a ``qa_review`` manifest sample stands for (turns and evidence prefetched)."""
    source = QaManifestSource.objects.filter(manifest_id=sample.manifest_id).first()
    if source is None:
        raise Http404("Not a QA-review sample.")
    return (
        QaGroup.objects.select_related("video", "group_set")
        .prefetch_related("turns__evidence")
        .get(group_set_id=source.group_set_id, uid=sample.sample_id)
    )


def group_of(assignment) -> QaGroup:
    """The QA group a ``qa_review`` assignment is about."""
    return group_for_sample(assignment.item.sample)


def group_sets():
    return QaGroupSet.objects.filter(frozen_at__isnull=False).order_by("-frozen_at", "-id")


def edits_of_set(group_set: QaGroupSet):
    return (
        QaEdit.objects.filter(group__group_set=group_set)
        .select_related("group", "author", "decided_by", "accepted_into")
        .order_by("group__uid", "id")
    )

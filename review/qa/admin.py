"""Admin lists of QA group sets, groups, turns, evidence, edits: read-only (frozen or
append-only); edits are decided on the QA edits page, not here."""

from __future__ import annotations

from django.contrib import admin

from review.qa.models import QaEdit, QaEvidence, QaGroup, QaGroupSet, QaManifestSource, QaTurn


class _ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(QaGroupSet)
class QaGroupSetAdmin(_ReadOnly):
    list_display = ("name", "origin", "parent", "sample_count", "manifest_sha256", "frozen_at")


@admin.register(QaGroup)
class QaGroupAdmin(_ReadOnly):
    list_display = ("uid", "group_set", "structure", "category", "modality", "turn_count")
    list_filter = ("group_set", "structure", "modality")


@admin.register(QaTurn)
class QaTurnAdmin(_ReadOnly):
    list_display = ("group", "position", "question")


@admin.register(QaEvidence)
class QaEvidenceAdmin(_ReadOnly):
    list_display = ("turn", "position", "start_us", "end_us", "modality")


@admin.register(QaManifestSource)
class QaManifestSourceAdmin(_ReadOnly):
    list_display = ("manifest", "group_set")


@admin.register(QaEdit)
class QaEditAdmin(_ReadOnly):
    list_display = ("group", "field", "turn", "evidence", "author", "state", "created_at")
    list_filter = ("state", "field")

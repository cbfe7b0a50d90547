"""Admin lists of the audit's own records: read-only, like everything append-only."""

from __future__ import annotations

from django.contrib import admin

from review.audit.models import Adjudication, Correction


class _AppendOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Adjudication)
class AdjudicationAdmin(_AppendOnlyAdmin):
    list_display = (
        "campaign",
        "item",
        "criterion",
        "label",
        "adjudicator",
        "created_at",
        "imported",
    )
    list_filter = ("campaign", "criterion", "label")
    list_select_related = ("campaign", "adjudicator")


@admin.register(Correction)
class CorrectionAdmin(_AppendOnlyAdmin):
    list_display = ("campaign", "item", "kind", "author", "created_at", "revision")
    list_filter = ("campaign", "kind")
    list_select_related = ("campaign", "author", "revision")

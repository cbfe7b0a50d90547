"""Admin list of the judge-validation triplets: read-only (they never change)."""

from __future__ import annotations

from django.contrib import admin

from review.judgeval.models import JudgeTriplet


@admin.register(JudgeTriplet)
class JudgeTripletAdmin(admin.ModelAdmin):
    list_display = ("manifest", "sample", "slot", "run_name")
    list_filter = ("manifest", "slot")
    list_select_related = ("manifest", "sample")

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

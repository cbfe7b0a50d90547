from django.contrib import admin, messages
from django.shortcuts import redirect
from django.urls import reverse

from annotation.models import MicroStep, StepRevision, VideoAssignment
from annotation.rendering import render_jobs


@admin.register(VideoAssignment)
class VideoAssignmentAdmin(admin.ModelAdmin):
    list_display = ("video", "annotator", "assigned_at", "assigned_by")
    list_filter = ("annotator",)
    autocomplete_fields = ()
    readonly_fields = ("assigned_at", "assigned_by")

    def save_model(self, request, obj, form, change):
        if not change:
            obj.assigned_by = request.user
        super().save_model(request, obj, form, change)


class StepRevisionInline(admin.TabularInline):
    model = StepRevision
    extra = 0
    can_delete = False
    fields = ("version", "action", "author", "created_at", "reason")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(MicroStep)
class MicroStepAdmin(admin.ModelAdmin):
    """Read-only here: edits go through the workspace so every change gets a revision."""

    list_display = (
        "video",
        "position",
        "start_us",
        "cutoff_us",
        "outcome_us",
        "end_us",
        "status",
        "version",
    )
    list_filter = ("status", "video__scene")
    search_fields = ("uid", "local_intent", "procedural_intent", "next_step")
    inlines = [StepRevisionInline]
    actions = ["render_official"]

    @admin.action(description="Render the Official clip and its 16-frame set")
    def render_official(self, request, queryset):
        from media.renders import batch_create

        jobs = render_jobs(queryset)
        if not jobs:
            self.message_user(request, "No active step selected.", messages.WARNING)
            return None
        batch = batch_create(
            jobs=jobs,
            conditions=["official"],
            profiles=["clip", "frames16"],
            user=request.user,
            label=f"Official clip + frames of {len(jobs)} step(s)",
        )
        self.message_user(request, f"Render batch {batch.pk} queued; its page shows progress.")
        return redirect(reverse("admin:media_renderbatch_change", args=[batch.pk]))

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in self.model._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(StepRevision)
class StepRevisionAdmin(admin.ModelAdmin):
    list_display = ("step", "version", "action", "author", "created_at")
    list_filter = ("action",)

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in self.model._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

from django.contrib import admin, messages
from django.shortcuts import redirect
from django.urls import reverse

from annotation.models import MicroStep, StepRevision, VideoAssignment
from annotation.rendering import render_jobs
from media.display import mark_column


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

    list_display = ("video", "number", "start", "cutoff", "outcome", "end", "status", "version")
    list_select_related = ("video",)
    list_filter = ("status", "video__scene")
    search_fields = ("uid", "local_intent", "procedural_intent", "next_step", "tags")
    inlines = [StepRevisionInline]
    actions = ["render_official"]

    @admin.action(description="Render the Official clip and its 16-frame set")
    def render_official(self, request, queryset):
        from media.batches import batch_create

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

    start = mark_column("start_us", "start", frame_times=lambda step: step.video.frame_times)
    cutoff = mark_column("cutoff_us", "cutoff", frame_times=lambda step: step.video.frame_times)
    outcome = mark_column("outcome_us", "outcome", frame_times=lambda step: step.video.frame_times)
    end = mark_column("end_us", "end", frame_times=lambda step: step.video.frame_times)

    @admin.display(description="step", ordering="position")
    def number(self, obj) -> int:
        return obj.position + 1

    def get_fields(self, request, obj=None):
        first = ["uid", "video", "number", "start", "cutoff", "outcome", "end"]
        hidden = {"id", "position", "uid", "video"}
        rest = [f.name for f in self.model._meta.fields if f.name not in hidden]
        return first + [name for name in rest if not name.endswith("_us")]

    def get_readonly_fields(self, request, obj=None):
        return self.get_fields(request, obj)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
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

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

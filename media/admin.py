from contextvars import ContextVar

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from media.batches import batch_create, batch_progress, batch_rerun
from media.forms import RenderBatchForm, VideoImportForm
from media.imports import video_import_progress, video_import_stage
from media.models import (
    MediaGrant,
    RenderBatch,
    RenderBatchItem,
    RenderedMedia,
    Scene,
    SourceVideo,
    VideoImport,
)
from media.probe import MediaRejected
from media.renders import media_rerun
from media.subjects import subject_names
from studio.display import duration as duration_text
from studio.display import frame_rate, timecode
from studio.roles import is_admin


@admin.register(Scene)
class SceneAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "setting")
    search_fields = ("slug", "name")


@admin.register(SourceVideo)
class SourceVideoAdmin(admin.ModelAdmin):
    list_display = ("title", "scene", "duration", "width", "height", "fps", "is_vfr", "status")
    list_filter = ("scene", "status", "is_vfr")
    search_fields = ("title", "sha256")
    exclude = ("frame_times", "keyframe_times", "fps_num", "fps_den", "duration_us", "origin_us")
    readonly_fields = (
        "sha256",
        "size_bytes",
        "container",
        "mime_type",
        "codec",
        "width",
        "height",
        "rotation",
        "fps",
        "is_vfr",
        "has_audio",
        "audio_codec",
        "audio_sample_rate",
        "audio_channels",
        "duration",
        "origin",
        "frame_count",
        "file",
        "created_at",
        "imported_by",
    )

    @admin.display(description="duration", ordering="duration_us")
    def duration(self, obj) -> str:
        return duration_text(obj.duration_us, frames=obj.frame_count)

    @admin.display(description="frame rate", ordering="fps_num")
    def fps(self, obj) -> str:
        return frame_rate(obj.fps_num, obj.fps_den)

    @admin.display(description="first frame on the file's timeline")
    def origin(self, obj) -> str:
        return timecode(obj.origin_us)

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # steps reference videos; a video is disabled, never deleted

    def get_urls(self):
        urls = [
            path(
                "import/",
                self.admin_site.admin_view(self.import_view),
                name="media_sourcevideo_import",
            ),
        ]
        return urls + super().get_urls()

    def add_view(self, request, form_url="", extra_context=None):
        # A source video only ever enters through the probe: "Add" is the import page.
        return redirect("admin:media_sourcevideo_import")

    def import_view(self, request):
        if not (is_admin(request.user) and self.has_add_permission(request)):
            raise PermissionDenied
        form = VideoImportForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            try:
                # Quick: the first bytes are checked and the file is staged; a media worker
                # probes it while the import page shows its progress.
                job = video_import_stage(
                    upload=data["file"], scene=data["scene"], title=data["title"], user=request.user
                )
            except MediaRejected as exc:
                form.add_error("file", str(exc))
            else:
                messages.info(request, f"“{job.title}” is being imported on a media worker.")
                return redirect(reverse("admin:media_videoimport_change", args=[job.pk]))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Import video",
            "form": form,
        }
        return TemplateResponse(
            request,
            "admin/media/sourcevideo/import.html",
            context,
            status=400 if form.errors else 200,
        )


@admin.register(VideoImport)
class VideoImportAdmin(admin.ModelAdmin):
    """Uploads and how their import went; made by the import page, written by the worker."""

    list_display = (
        "title", "scene", "status", "progress_percent", "attempts", "created_at", "finished_at"
    )  # fmt: skip
    list_filter = ("status", "scene")
    search_fields = ("title", "error")
    # Status, progress, video and reason are in the live box the page polls (change_form.html).
    fields = ("title", "scene", "size_bytes", "created_by", "created_at")
    readonly_fields = fields
    change_form_template = "admin/media/videoimport/change_form.html"

    def has_add_permission(self, request) -> bool:
        return False  # imports start on the source video import page

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description="progress")
    def progress_percent(self, obj) -> str:
        return f"{obj.progress:.0%}"

    def get_urls(self):
        return [
            path(
                "<int:import_id>/progress/",
                self.admin_site.admin_view(self.progress_view),
                name="media_videoimport_progress",
            ),
            *super().get_urls(),
        ]

    def progress_view(self, request, import_id: int):
        if not self.has_view_permission(request):
            raise PermissionDenied
        job = get_object_or_404(VideoImport, pk=import_id)
        progress = video_import_progress(job)
        if job.video_id is not None:
            progress["video_url"] = reverse("admin:media_sourcevideo_change", args=[job.video_id])
        return JsonResponse(progress)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        extra = {**(extra_context or {})}
        job = VideoImport.objects.filter(pk=object_id).first()
        if job is not None:
            extra["import_progress"] = video_import_progress(job)
            extra["progress_url"] = reverse("admin:media_videoimport_progress", args=[job.pk])
        return super().change_view(request, object_id, form_url, extra)


@admin.register(RenderedMedia)
class RenderedMediaAdmin(admin.ModelAdmin):
    list_display = (
        "key_short",
        "kind",
        "profile",
        "video",
        "status",
        "frame_count",
        "size_bytes",
        "attempts",
        "ready_at",
    )
    list_filter = ("status", "kind", "profile")
    search_fields = ("key",)
    actions = ["rerun"]

    def get_fields(self, request, obj=None):
        return [
            "duration" if f.name == "duration_us" else f.name
            for f in self.model._meta.fields
            if f.name != "id"
        ]

    def get_readonly_fields(self, request, obj=None):
        return self.get_fields(request, obj)

    def has_add_permission(self, request) -> bool:
        return False  # media are requested by services, never typed in

    def has_change_permission(self, request, obj=None) -> bool:
        return False  # written by the renderer only: no Save buttons

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description="duration")
    def duration(self, obj) -> str:
        return duration_text(obj.duration_us, frames=obj.frame_count)

    @admin.display(description="key")
    def key_short(self, obj) -> str:
        return obj.key[:12]

    @admin.action(description="Render again what is not ready")
    def rerun(self, request, queryset):
        count = media_rerun(media_ids=queryset.values_list("pk", flat=True))
        self.message_user(request, f"{count} media queued.")


# Subject names looked up for the page being rendered: one lookup per batch shown, per request.
_SUBJECT_NAMES: ContextVar[dict | None] = ContextVar("subject_names", default=None)


def _rendered_with_subject_names(response):
    token = _SUBJECT_NAMES.set({})
    try:
        if hasattr(response, "render"):
            response.render()
        return response
    finally:
        _SUBJECT_NAMES.reset(token)


class _NamedSubject:
    """A batch item names what it renders ("Step 3 of kitchen-tea.mp4", from the app that made
    the subject: media.subjects) above the subject's own reference."""

    @admin.display(description="what", ordering="subject")
    def named_subject(self, obj) -> str:
        names = _SUBJECT_NAMES.get()
        if names is None:
            names = {}  # outside a page render: this item alone
        if obj.subject not in names:
            batch = RenderBatchItem.objects.filter(batch_id=obj.batch_id)
            subjects = {obj.subject, *batch.values_list("subject", flat=True)}
            found = subject_names(subjects)
            names.update({s: found.get(s, "") for s in subjects})
        name = names[obj.subject]
        return format_html("{}<br><small>{}</small>", name, obj.subject) if name else obj.subject


class RenderBatchItemInline(_NamedSubject, admin.TabularInline):
    model = RenderBatchItem
    fields = ("named_subject", "condition", "profile", "media_status", "note", "reason")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("media")

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description="status")
    def media_status(self, obj) -> str:
        return obj.media.status if obj.media else "not built"

    @admin.display(description="reason")
    def reason(self, obj) -> str:
        return obj.error or (obj.media.error if obj.media else "")


@admin.register(RenderBatch)
class RenderBatchAdmin(admin.ModelAdmin):
    list_display = ("__str__", "created_at", "created_by", "progress")
    readonly_fields = ("label", "created_at", "created_by")
    inlines = [RenderBatchItemInline]
    actions = ["rerun"]
    change_form_template = "admin/media/renderbatch/change_form.html"

    def has_change_permission(self, request, obj=None) -> bool:
        return False  # a batch is made by the batch service: no Save buttons

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description="progress")
    def progress(self, obj) -> str:
        p = batch_progress(obj)
        return format_html(
            '<progress value="{}" max="{}"></progress> {} / {} ({} failed)',
            p["done"],
            p["total"] or 1,
            p["done"],
            p["total"],
            p["failed"],
        )

    @admin.action(description="Render again what is not finished")
    def rerun(self, request, queryset):
        count = sum(batch_rerun(batch=batch) for batch in queryset)
        self.message_user(request, f"{count} media queued.")

    def get_urls(self):
        return [
            path(
                "<int:batch_id>/progress/",
                self.admin_site.admin_view(self.progress_view),
                name="media_renderbatch_progress",
            ),
            *super().get_urls(),
        ]

    @staticmethod
    def _named_progress(batch: RenderBatch) -> dict:
        """The batch's progress with each failure's subject named (media.subjects)."""
        progress = batch_progress(batch)
        names = subject_names(f["subject"] for f in progress["failures"])
        for failure in progress["failures"]:
            failure["name"] = names.get(failure["subject"], failure["subject"])
        return progress

    def progress_view(self, request, batch_id: int):
        if not self.has_view_permission(request):
            raise PermissionDenied
        return JsonResponse(self._named_progress(get_object_or_404(RenderBatch, pk=batch_id)))

    def change_view(self, request, object_id, form_url="", extra_context=None):
        extra = {**(extra_context or {})}
        batch = RenderBatch.objects.filter(pk=object_id).first()
        if batch is not None:
            extra["batch_progress"] = self._named_progress(batch)
            extra["progress_url"] = reverse("admin:media_renderbatch_progress", args=[batch.pk])
        return _rendered_with_subject_names(
            super().change_view(request, object_id, form_url, extra)
        )

    def add_view(self, request, form_url="", extra_context=None):
        # A batch is made from a jobs file (steps as plain times) through the batch service.
        if not (is_admin(request.user) and self.has_add_permission(request)):
            raise PermissionDenied
        form = RenderBatchForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            batch = batch_create(
                jobs=form.cleaned_data["jobs"],
                conditions=form.cleaned_data["conditions"],
                profiles=form.cleaned_data["profiles"],
                user=request.user,
                label=form.cleaned_data["label"],
            )
            messages.success(request, f"Batch {batch.pk} created; rendering in the background.")
            return redirect(reverse("admin:media_renderbatch_change", args=[batch.pk]))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "New render batch",
            "form": form,
        }
        return TemplateResponse(
            request, "admin/media/renderbatch/add.html", context, status=400 if form.errors else 200
        )


@admin.register(RenderBatchItem)
class RenderBatchItemAdmin(_NamedSubject, admin.ModelAdmin):
    """Every item of every batch, to search failures across batches; batches create them."""

    list_display = ("named_subject", "batch", "condition", "profile", "media", "note")
    list_filter = ("condition", "profile")
    search_fields = ("subject", "error")
    list_select_related = ("batch", "media")

    def changelist_view(self, request, extra_context=None):
        return _rendered_with_subject_names(super().changelist_view(request, extra_context))

    def change_view(self, request, object_id, form_url="", extra_context=None):
        return _rendered_with_subject_names(
            super().change_view(request, object_id, form_url, extra_context)
        )

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(MediaGrant)
class MediaGrantAdmin(admin.ModelAdmin):
    """Opaque media URLs handed out; deleting one revokes it. Tokens themselves are not stored."""

    list_display = ("user", "media", "source", "created_at", "expires_at")
    list_filter = ("user",)
    list_select_related = ("user", "media", "source")
    exclude = ("token_hash",)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

import tempfile
from pathlib import Path

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from media.ffmpeg import FFmpegError
from media.forms import VideoImportForm
from media.models import Scene, SourceVideo
from media.probe import MediaRejected
from media.services import DuplicateVideo, video_import
from studio.roles import is_admin


@admin.register(Scene)
class SceneAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "setting")
    search_fields = ("slug", "name")


@admin.register(SourceVideo)
class SourceVideoAdmin(admin.ModelAdmin):
    list_display = (
        "title",
        "scene",
        "duration_us",
        "width",
        "height",
        "fps_num",
        "is_vfr",
        "status",
    )
    list_filter = ("scene", "status", "is_vfr")
    search_fields = ("title", "sha256")
    exclude = ("frame_times", "keyframe_times")
    readonly_fields = (
        "sha256",
        "size_bytes",
        "container",
        "mime_type",
        "codec",
        "width",
        "height",
        "rotation",
        "fps_num",
        "fps_den",
        "is_vfr",
        "has_audio",
        "duration_us",
        "origin_us",
        "frame_count",
        "file",
        "created_at",
        "imported_by",
    )

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
            upload = form.cleaned_data["file"]
            try:
                video = self._import_upload(request, upload, form.cleaned_data)
            except (MediaRejected, DuplicateVideo, FFmpegError) as exc:
                form.add_error("file", str(exc))
            else:
                messages.success(
                    request,
                    f"Imported “{video.title}”: {video.frame_count} "
                    f"frames, {video.duration_us / 1e6:.2f} s.",
                )
                return redirect(reverse("admin:media_sourcevideo_change", args=[video.pk]))
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

    @staticmethod
    def _import_upload(request, upload, data):
        title = data["title"] or Path(upload.name).name
        if hasattr(upload, "temporary_file_path"):
            return video_import(
                path=upload.temporary_file_path(),
                scene=data["scene"],
                title=title,
                user=request.user,
            )
        # Small uploads live in memory; the probe needs a file.
        with tempfile.NamedTemporaryFile(suffix=".upload") as handle:
            for chunk in upload.chunks():
                handle.write(chunk)
            handle.flush()
            return video_import(
                path=handle.name, scene=data["scene"], title=title, user=request.user
            )

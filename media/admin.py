from django.contrib import admin

from media.models import Scene, SourceVideo


@admin.register(Scene)
class SceneAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "setting")
    search_fields = ("slug", "name")


@admin.register(SourceVideo)
class SourceVideoAdmin(admin.ModelAdmin):
    list_display = ("title", "scene", "duration_us", "width", "height", "fps_num", "is_vfr",
                    "status")
    list_filter = ("scene", "status", "is_vfr")
    search_fields = ("title", "sha256")
    exclude = ("frame_times",)
    readonly_fields = ("sha256", "size_bytes", "container", "mime_type", "codec", "width",
                       "height", "rotation", "fps_num", "fps_den", "is_vfr", "has_audio",
                       "duration_us", "frame_count", "file", "created_at", "imported_by")

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # steps reference videos; a video is disabled, never deleted

from django.contrib import admin

from studio.models import WorkerHeartbeat

admin.site.site_header = "Intent Studio administration"
admin.site.site_title = "Intent Studio admin"
admin.site.index_title = "Administration"


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin):
    """Written by the workers themselves; people only look."""

    list_display = ("hostname", "queues", "last_seen")
    readonly_fields = ("hostname", "queues", "last_seen")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

from django.contrib import admin

from studio.models import WorkerHeartbeat


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin):
    list_display = ("hostname", "queues", "last_seen")
    readonly_fields = ("hostname", "queues", "last_seen")

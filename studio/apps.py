from django.apps import AppConfig
from django.db.models.signals import post_migrate


class StudioConfig(AppConfig):
    name = "studio"
    verbose_name = "Intent Studio"

    def ready(self) -> None:
        # studio.schema (drf-spectacular, with its OpenAPI extensions) is not imported here: REST
        # framework imports it, as DEFAULT_SCHEMA_CLASS, when a schema is first generated.
        from studio.roles import sync_role_groups

        # Once per migrate run, after the last app has its tables and permissions.
        post_migrate.connect(sync_role_groups, sender=self, dispatch_uid="studio_sync_roles")

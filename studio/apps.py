from django.apps import AppConfig
from django.db.models.signals import post_migrate


class StudioConfig(AppConfig):
    name = "studio"
    verbose_name = "Intent Studio"

    def ready(self) -> None:
        from studio import schema  # noqa: F401 (registers the OpenAPI extensions)
        from studio.roles import sync_role_groups

        # Once per migrate run, after the last app has its tables and permissions.
        post_migrate.connect(sync_role_groups, sender=self, dispatch_uid="studio_sync_roles")

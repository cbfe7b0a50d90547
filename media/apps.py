from django.apps import AppConfig


class MediaConfig(AppConfig):
    name = "media"
    verbose_name = "Media"

    def ready(self) -> None:
        from media import home  # noqa: F401  (registers the home-page cards)
        from media.imports import IMPORT_WORK
        from media.renders import RENDER_WORK
        from studio.leases import work_kind_register

        # A render or an import whose worker died is queued again by the lease sweeper.
        work_kind_register(RENDER_WORK)
        work_kind_register(IMPORT_WORK)

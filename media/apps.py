from django.apps import AppConfig


class MediaConfig(AppConfig):
    name = "media"
    verbose_name = "Media"

    def ready(self) -> None:
        from media import home  # noqa: F401  (registers the home-page cards)

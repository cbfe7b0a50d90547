from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation"

    def ready(self) -> None:
        # Registers the home-page cards and the names of render subjects.
        from annotation import home, rendering  # noqa: F401

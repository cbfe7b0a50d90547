from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "review"
    verbose_name = "Review"

    def ready(self) -> None:
        from review.audit import (
            demo,  # noqa: F401  (demo seeder)
            home,  # noqa: F401  (home cards)
        )
        from review.audit.kind import register

        register()

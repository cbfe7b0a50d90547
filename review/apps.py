from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "review"
    verbose_name = "Review"

    def ready(self) -> None:
        # Registers the campaign home cards.
        from review.campaigns import home  # noqa: F401

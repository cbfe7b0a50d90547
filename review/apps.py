from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "review"
    verbose_name = "Review"

    def ready(self) -> None:
        # Home cards and the demo seeder of the audit, the campaigns' home cards; the audit kind.
        import review.audit.demo
        import review.audit.home
        import review.boundary.demo
        import review.boundary.home
        import review.campaigns.home  # noqa: F401
        from review.audit.kind import register
        from review.boundary.kind import register as register_boundary

        register()
        register_boundary()

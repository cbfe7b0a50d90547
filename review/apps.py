from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "review"
    verbose_name = "Review"

    def ready(self) -> None:
        # Home cards and the demo seeder of the audit, the campaigns' home cards; the audit kind.
        import review.audit.demo
        import review.audit.home
        import review.campaigns.home
        import review.qa.demo
        import review.qa.home  # noqa: F401
        from review.audit.kind import register
        from review.qa.kind import register as register_qa

        register()
        register_qa()

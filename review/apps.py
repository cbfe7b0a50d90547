from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "review"
    verbose_name = "Review"

    def ready(self) -> None:
        # Home cards and the demo seeder of the audit, the campaigns' home cards; the audit kind.
        import review.audit.demo
        import review.audit.home
        import review.baseline.demo
        import review.campaigns.home  # noqa: F401
        from review.audit.kind import register as register_audit
        from review.baseline.kind import register as register_baseline
        from review.judgeval.kind import register as register_judgeval

        register_audit()
        register_baseline()
        register_judgeval()

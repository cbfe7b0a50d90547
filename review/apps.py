from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "review"
    verbose_name = "Review"

    def ready(self) -> None:
        # Home cards and demo seeders of the campaign kinds, the campaigns' home cards; the kinds.
        import review.audit.demo
        import review.audit.home
        import review.baseline.demo
        import review.boundary.demo
        import review.boundary.home
        import review.campaigns.home
        import review.qa.demo
        import review.qa.home  # noqa: F401

        # The exposure rule keeps the workspace from people who still answer its steps blind.
        from annotation.visibility import visibility_register
        from review.audit.kind import register as register_audit
        from review.baseline.kind import register as register_baseline
        from review.boundary.kind import register as register_boundary
        from review.campaigns.exposure import withheld_video_ids, workspace_shown
        from review.judgeval.kind import register as register_judgeval
        from review.qa.kind import register as register_qa

        visibility_register(withheld=withheld_video_ids, shown=workspace_shown)
        register_audit()
        register_baseline()
        register_judgeval()
        register_boundary()
        register_qa()

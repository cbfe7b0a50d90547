from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _sync_packages(sender, **kwargs) -> None:
    # Our shipped packages are registered (as new versions when their bytes changed) after every
    # migrate, so `make run` and a fresh database always have them.
    from scoring.packages import packages_sync_builtin

    packages_sync_builtin()


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = "Scoring"

    def ready(self) -> None:
        # Also imported for the vocabularies they declare (studio/vocabulary.py): the video
        # judge's diagnostics, study stages, the reports' exclusion reasons.
        from scoring import baseline_demo, demo, home  # noqa: F401  (demo seeders, home cards)
        from scoring.judges import scores as _diagnostics  # noqa: F401
        from scoring.judges.handlers import JUDGE_HANDLERS
        from scoring.judges.views import run_page_part as judge_page_part
        from scoring.judgeval import demo as _judgeval_demo  # noqa: F401
        from scoring.publish import verify as _publish_check  # noqa: F401  (a bundle check)
        from scoring.qa import demo as _qa_audit_demo  # noqa: F401
        from scoring.qa.audits import run_page_part as qa_audit_page_part
        from scoring.qa.dialogue import KIND as QA_TURN
        from scoring.qa.dialogue import QaTurnHandler
        from scoring.qa.results import run_page_part as qa_page_part
        from scoring.qa.run_views import run_list_part as qa_list_part
        from scoring.runs.kinds import call_kind_register
        from scoring.runs.leases import run_item_work
        from scoring.runs.views import run_list_part_register, run_page_part_register
        from scoring.studies import progress as _stages  # noqa: F401
        from scoring.studies import scores as _exclusions  # noqa: F401
        from studio.leases import work_kind_register

        work_kind_register(run_item_work())
        for kind, handler in JUDGE_HANDLERS.items():
            call_kind_register(kind, handler)
        call_kind_register(QA_TURN, QaTurnHandler)
        run_page_part_register(judge_page_part)
        run_page_part_register(qa_page_part)
        run_page_part_register(qa_audit_page_part)
        run_list_part_register(qa_list_part)
        post_migrate.connect(_sync_packages, sender=self, dispatch_uid="scoring.sync_packages")

"""Queueing work without importing a tasks module.

The one direction inside every app: a tasks module imports the services it runs, and nothing
imports a tasks module back. A service that queues work names the task by its registered Celery
name (``task_named("media.render_medium").delay(pk)``), so services, tasks and the Celery app
never form a circle (docs/architecture.md, "Import rules")."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from celery import Task


def task_named(name: str) -> Task:
    """The task registered as ``name``. Its module is imported the way a worker imports it
    (Celery's discovery of every installed app's ``tasks`` module) the first time one is
    asked for in this process; an unknown name raises ``celery.exceptions.NotRegistered``.
    Celery itself is loaded by the first call, not by importing a service that queues work."""
    from studio.celery import app

    if name not in app.tasks:
        app.loader.import_default_modules()
    return app.tasks[name]


def soft_time_limit() -> type[BaseException]:
    """Celery's ``SoftTimeLimitExceeded``, for ``except soft_time_limit():``. An ``except``
    clause is evaluated only when an exception reaches it, so the module that catches it does not
    load Celery when it is imported (a worker, where the limit strikes, has it loaded anyway)."""
    from celery.exceptions import SoftTimeLimitExceeded

    return SoftTimeLimitExceeded

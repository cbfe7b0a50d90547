"""Intent Studio project package: settings, URLs, the Celery app (``studio.celery``).

The Celery app is not imported here: a command or a page that queues nothing never loads Celery.
``celery -A studio`` finds ``studio.celery`` by itself; whatever queues work reaches the app
through ``studio.enqueue``, and every tasks module imports it, so a task is always bound to it.
"""

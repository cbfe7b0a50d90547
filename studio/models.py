from django.db import models


class WorkerHeartbeat(models.Model):
    """Last sign of life of one Celery worker (one row per worker hostname)."""

    hostname = models.CharField(max_length=255, unique=True)
    queues = models.CharField(max_length=255, blank=True)
    last_seen = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.hostname} @ {self.last_seen:%Y-%m-%d %H:%M:%S}"

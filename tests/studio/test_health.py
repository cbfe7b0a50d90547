import pytest

from studio.services import worker_heartbeat


@pytest.mark.django_db
def test_healthz_is_503_without_a_live_worker(client):
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["database"]["ok"] and body["broker"]["ok"]
    assert body["workers"] == {"ok": False, "live": []}


@pytest.mark.django_db
def test_healthz_is_200_with_a_recent_heartbeat(client):
    worker_heartbeat(hostname="w1@host", queues="default,media")
    body = client.get("/healthz").json()
    assert body["ok"] is True
    assert body["workers"]["live"] == [{"hostname": "w1@host", "queues": "default,media"}]


@pytest.mark.django_db
def test_healthz_ignores_a_stale_heartbeat(client, monkeypatch):
    from datetime import timedelta

    from django.utils import timezone

    import studio.services

    monkeypatch.setattr(studio.services, "now", lambda: timezone.now() - timedelta(minutes=5))
    worker_heartbeat(hostname="old@host")
    monkeypatch.undo()
    assert client.get("/healthz").status_code == 503


@pytest.mark.worker
def test_a_real_worker_runs_a_task_and_reports_live(celery_worker_process, client):
    from studio.tasks import ping

    assert ping.delay("abc").get(timeout=60) == "pong:abc"
    body = client.get("/healthz").json()
    assert body["ok"] is True, body

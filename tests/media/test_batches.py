"""Batches: manage.py render_media with a progress bar, failures per step, the admin pages."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from media.batches import batch_progress
from media.models import RenderBatch, RenderedMedia
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def _jobs(video):
    times = video.frame_times_us()

    def t(*idx):
        return [int(times[i]) for i in idx]

    return [
        {"subject": "step A", "video": video.pk, "step": t(40, 77, 85, 90),
         "previous": t(5, 12, 15, 20), "next": t(95, 120, 125, 130)},
        {"subject": "step B", "video": video.pk, "step": t(95, 120, 125, 130),
         "previous": t(40, 77, 85, 90), "next": None},
    ]  # fmt: skip


def test_render_media_inline_shows_progress_and_lists_failures(import_source, cfr_video, tmp_path):
    video = import_source(cfr_video)
    jobs = tmp_path / "jobs.json"
    jobs.write_text(json.dumps(_jobs(video)))
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError, match="1 renders failed"):
        call_command("render_media", jobs=str(jobs), conditions="official,next_visible",
                     profiles="clip", inline=True, stdout=out, stderr=err)  # fmt: skip
    assert "[" + "#" * 30 + "] 4/4 (3 ready, 1 failed)" in out.getvalue()
    assert "FAILED step B / next_visible / clip: next_visible needs a following step" in (
        err.getvalue()
    )
    batch = RenderBatch.objects.get()
    progress = batch_progress(batch)
    assert (progress["total"], progress["ready"], progress["failed"]) == (4, 3, 1)
    assert RenderedMedia.objects.filter(status="ready").count() == 3


def test_render_media_refuses_bad_arguments(import_source, cfr_video, tmp_path):
    video = import_source(cfr_video)
    jobs = tmp_path / "jobs.json"
    jobs.write_text(json.dumps(_jobs(video)))
    with pytest.raises(CommandError, match="unknown condition"):
        call_command("render_media", jobs=str(jobs), conditions="sideways", inline=True)
    with pytest.raises(CommandError, match="unknown profile"):
        call_command("render_media", jobs=str(jobs), profiles="gif", inline=True)
    jobs.write_text('[{"video": 1, "step": [5, 1, 2, 3]}]')
    with pytest.raises(CommandError, match="start < cutoff"):
        call_command("render_media", jobs=str(jobs), inline=True)
    assert RenderBatch.objects.count() == 0


def test_render_media_no_wait_queues_after_commit(
    import_source, cfr_video, tmp_path, django_capture_on_commit_callbacks
):
    video = import_source(cfr_video)
    jobs = tmp_path / "jobs.json"
    jobs.write_text(json.dumps(_jobs(video)))
    with django_capture_on_commit_callbacks() as callbacks:
        call_command("render_media", jobs=str(jobs), profiles="clip,frames16", no_wait=True,
                     stdout=io.StringIO())  # fmt: skip
    # Two steps x two profiles: each step's clip and frame set go as one task (one decode).
    assert len(callbacks) == 2
    assert RenderedMedia.objects.filter(status="pending").count() == 4


def test_admin_batch_pages(client, admin_user, import_source, cfr_video, settings):
    from django.core.files.uploadedfile import SimpleUploadedFile

    video = import_source(cfr_video)
    client.login(username=admin_user.username, password=PASSWORD)
    add = reverse("admin:media_renderbatch_add")
    assert client.get(add).status_code == 200
    upload = SimpleUploadedFile("jobs.json", json.dumps(_jobs(video)).encode())
    response = client.post(add, {"jobs": upload, "conditions": ["official", "next_visible"],
                                 "profiles": ["clip"], "label": "first"})  # fmt: skip
    batch = RenderBatch.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("admin:media_renderbatch_change", args=[batch.pk])
    page = client.get(response.url)
    assert page.status_code == 200
    assert "media/batch_progress.js" in page.content.decode()
    assert "next_visible needs a following step" in page.content.decode()
    progress = client.get(reverse("admin:media_renderbatch_progress", args=[batch.pk])).json()
    assert progress["total"] == 4 and progress["failed"] == 1 and not progress["finished"]
    listing = client.get(reverse("admin:media_renderbatch_changelist"))
    assert "<progress" in listing.content.decode()

    bad = SimpleUploadedFile("jobs.json", b"not json")
    response = client.post(add, {"jobs": bad, "conditions": ["official"], "profiles": ["clip"]})
    assert response.status_code == 400 and RenderBatch.objects.count() == 1


def test_batch_pages_are_for_admins(client, rater, import_source, cfr_video):
    client.login(username=rater.username, password=PASSWORD)
    assert client.get(reverse("admin:media_renderbatch_add")).status_code == 302

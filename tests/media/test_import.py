from __future__ import annotations

import hashlib
import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from media.imports import video_import_run
from media.models import SourceVideo, VideoImport
from media.probe import MediaRejected
from media.services import DuplicateVideo, video_import
from tests.conftest import PASSWORD
from tests.media.conftest import declared_size_mov, one_pixel_video, stored_files

pytestmark = pytest.mark.django_db


def test_import_stores_the_file_by_content_and_the_probe_values(
    cfr_video, copy_of, scene, admin_user, settings
):
    path = copy_of(cfr_video, "kitchen take 1.mp4")
    video = video_import(path=path, scene=scene, user=admin_user)
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    assert video.sha256 == sha
    assert video.file.name == f"sources/{sha[:2]}/{sha}.mp4"
    assert stored_files(settings.MEDIA_ROOT) == [video.file.name]
    assert video.title == "kitchen take 1.mp4"
    assert (video.width, video.height, video.fps_num, video.fps_den) == (320, 180, 30, 1)
    assert video.frame_count == len(cfr_video.frame_times_us)
    assert tuple(video.frame_times_us()) == cfr_video.frame_times_us
    assert tuple(video.keyframe_times_us()) == cfr_video.frame_times_us[::30]
    assert video.imported_by == admin_user
    assert video.size_bytes == path.stat().st_size


def test_import_of_vfr_and_rotated_sources(vfr_video, rotated_video, copy_of, scene):
    vfr = video_import(path=copy_of(vfr_video), scene=scene)
    rotated = video_import(path=copy_of(rotated_video), scene=scene)
    assert vfr.is_vfr and tuple(vfr.frame_times_us()) == vfr_video.frame_times_us
    assert rotated.rotation == 90 and rotated.display_size == (320, 180)


@pytest.mark.parametrize(
    "content",
    [
        b"\x00\x00\x00\x18ftypisom" + bytes(range(256)) * 20,
        b"just some notes, saved with the wrong name\n" * 10,
        b"#EXTM3U\n#EXTINF:1,\nother.mp4\n#EXT-X-ENDLIST\n",
        b"ffconcat version 1.0\nfile 'other.mp4'\n",
    ],
    ids=["corrupt", "text", "hls", "ffconcat"],
)
def test_rejected_imports_write_nothing(tmp_path, scene, settings, content):
    path = tmp_path / "upload.mp4"
    path.write_bytes(content)
    with pytest.raises(MediaRejected):
        video_import(path=path, scene=scene)
    assert SourceVideo.objects.count() == 0
    assert stored_files(settings.MEDIA_ROOT) == []


@pytest.mark.parametrize("case", ["one pixel", "fps", "frames", "declared oversize"])
def test_imports_over_a_limit_write_nothing(tmp_path, scene, settings, cfr_video, copy_of, case):
    if case == "one pixel":
        path, reason = one_pixel_video(tmp_path / "dot.mp4"), "MEDIA_MIN_SIDE_PX"
    elif case == "declared oversize":
        path, reason = declared_size_mov(tmp_path / "huge.mov", 20000, 20000), "MEDIA_MAX_SIDE_PX"
    elif case == "fps":
        settings.MEDIA_MAX_FPS = 24
        path, reason = copy_of(cfr_video), "MEDIA_MAX_FPS"
    else:
        settings.MEDIA_MAX_FRAMES = 100
        path, reason = copy_of(cfr_video), "MEDIA_MAX_FRAMES"
    with pytest.raises(MediaRejected, match=reason):
        video_import(path=path, scene=scene)
    assert SourceVideo.objects.count() == 0
    assert stored_files(settings.MEDIA_ROOT) == []


def test_duplicate_is_refused_naming_the_existing_video(cfr_video, copy_of, scene, settings):
    first = video_import(path=copy_of(cfr_video, "first.mp4"), scene=scene, title="First take")
    before = stored_files(settings.MEDIA_ROOT)
    with pytest.raises(DuplicateVideo, match="First take") as caught:
        video_import(path=copy_of(cfr_video, "again.mp4"), scene=scene)
    assert caught.value.existing == first
    assert SourceVideo.objects.count() == 1
    assert stored_files(settings.MEDIA_ROOT) == before


def test_a_failed_row_insert_removes_the_stored_file(cfr_video, copy_of, settings):
    from django.core.exceptions import ValidationError

    from media.models import Scene

    unsaved = Scene(slug="indoor/attic", name="Attic", setting="indoor")  # refused after the copy
    with pytest.raises(ValidationError):
        video_import(path=copy_of(cfr_video), scene=unsaved)
    assert SourceVideo.objects.count() == 0
    assert stored_files(settings.MEDIA_ROOT) == []


def test_import_videos_command_reports_each_file(cfr_video, vfr_video, copy_of, scene, tmp_path):
    good, vfr = copy_of(cfr_video), copy_of(vfr_video)
    bad = tmp_path / "notes.mp4"
    bad.write_text("not a video")
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError, match="1 of 3 files"):
        call_command("import_videos", str(good), str(bad), str(vfr), scene=scene.slug,
                     stdout=out, stderr=err)  # fmt: skip
    assert "2 imported, 1 failed" in out.getvalue()
    assert f"FAILED {bad}" in err.getvalue()
    assert SourceVideo.objects.count() == 2


def test_import_videos_command_all_good_exits_cleanly(cfr_video, copy_of, scene):
    out = io.StringIO()
    call_command("import_videos", str(copy_of(cfr_video)), scene=scene.slug, stdout=out)
    assert "1 imported, 0 failed" in out.getvalue()


def test_import_videos_command_unknown_scene(cfr_video, scene):
    with pytest.raises(CommandError, match="unknown scene 'indoor/attic'"):
        call_command("import_videos", str(cfr_video.path), scene="indoor/attic")
    assert SourceVideo.objects.count() == 0


def test_admin_upload_is_staged_then_imported_by_the_worker_service(
    client, admin_user, scene, cfr_video, settings, django_capture_on_commit_callbacks
):
    client.login(username=admin_user.username, password=PASSWORD)
    url = reverse("admin:media_sourcevideo_import")
    assert client.get(url).status_code == 200
    assert client.get(reverse("admin:media_sourcevideo_add")).url == url
    with django_capture_on_commit_callbacks() as queued, open(cfr_video.path, "rb") as handle:
        response = client.post(url, {"scene": scene.pk, "file": handle, "title": ""})
    # The request only staged the file and queued the probe: no video yet.
    assert len(queued) == 1
    job = VideoImport.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("admin:media_videoimport_change", args=[job.pk])
    assert (job.status, job.title, job.created_by) == ("pending", "cfr.mp4", admin_user)
    assert SourceVideo.objects.count() == 0
    assert stored_files(settings.MEDIA_ROOT) == [job.upload]
    page = client.get(response.url)
    assert page.status_code == 200 and b'id="import-progress"' in page.content
    progress_url = reverse("admin:media_videoimport_progress", args=[job.pk])
    assert client.get(progress_url).json()["status"] == "pending"

    video_import_run(import_id=job.pk)  # what the media worker's task does

    job.refresh_from_db()
    video = SourceVideo.objects.get()
    assert (job.status, job.video, job.progress, job.attempts) == ("done", video, 1.0, 1)
    assert video.title == "cfr.mp4" and video.imported_by == admin_user
    assert video.frame_count == len(cfr_video.frame_times_us)
    assert stored_files(settings.MEDIA_ROOT) == [video.file.name]  # the staged copy is gone
    state = client.get(progress_url).json()
    assert state["finished"] and state["video_url"].endswith(f"/{video.pk}/change/")
    assert video_import_run(import_id=job.pk).status == "done"  # a second delivery: no-op
    assert SourceVideo.objects.count() == 1


def test_an_upload_refused_by_the_probe_fails_with_its_reason_and_writes_nothing(
    client, admin_user, scene, settings, tmp_path
):
    client.login(username=admin_user.username, password=PASSWORD)
    with open(one_pixel_video(tmp_path / "dot.mp4"), "rb") as handle:
        client.post(reverse("admin:media_sourcevideo_import"), {"scene": scene.pk, "file": handle})
    job = VideoImport.objects.get()
    video_import_run(import_id=job.pk)
    job.refresh_from_db()
    assert job.status == "failed" and "smallest accepted is 64 px" in job.error
    assert SourceVideo.objects.count() == 0
    assert stored_files(settings.MEDIA_ROOT) == []
    state = client.get(reverse("admin:media_videoimport_progress", args=[job.pk])).json()
    assert state["finished"] and "MEDIA_MIN_SIDE_PX" in state["error"]


@pytest.mark.parametrize("role", ["annotator", "auditor", "rater", "adjudicator"])
def test_import_progress_is_for_admins_only(client, request, scene, role):
    user = request.getfixturevalue(role)
    job = VideoImport.objects.create(scene=scene, title="x.mp4", upload="imports/x", size_bytes=1)
    client.login(username=user.username, password=PASSWORD)
    for url in (
        reverse("admin:media_videoimport_progress", args=[job.pk]),
        reverse("admin:media_videoimport_change", args=[job.pk]),
    ):
        assert client.get(url).status_code in (302, 403)


def test_admin_upload_of_a_playlist_shows_the_reason_and_stores_nothing(
    client, admin_user, scene, settings
):
    client.login(username=admin_user.username, password=PASSWORD)
    playlist = io.BytesIO(b"#EXTM3U\n#EXTINF:1,\nother.mp4\n#EXT-X-ENDLIST\n")
    playlist.name = "holiday.mp4"
    response = client.post(reverse("admin:media_sourcevideo_import"),
                           {"scene": scene.pk, "file": playlist})  # fmt: skip
    assert response.status_code == 400
    assert "HLS playlist" in response.content.decode()
    assert SourceVideo.objects.count() == 0
    assert stored_files(settings.MEDIA_ROOT) == []


def test_import_page_is_for_admins_only(client, annotator):
    client.login(username=annotator.username, password=PASSWORD)
    response = client.get(reverse("admin:media_sourcevideo_import"))
    assert response.status_code in (302, 403)

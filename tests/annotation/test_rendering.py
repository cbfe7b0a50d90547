"""Steps become render jobs with their neighbours; the admin action and the command pipeline
render real clips of a generated video."""

import io
import json
import sys

import pytest
from django.core.files.storage import default_storage
from django.core.management import call_command

from annotation.models import MicroStep, VideoAssignment
from annotation.rendering import render_jobs
from annotation.services import step_create, step_retract
from media.models import RenderBatch, RenderedMedia
from media.synth import read_frame_numbers
from tests.synth_cache import synth_video

S = 1_000_000


def _steps(video, author, spans):
    return [
        step_create(video=video, author=author, start_us=a, cutoff_us=b, outcome_us=b, end_us=c)
        for a, b, c in spans
    ]


def test_jobs_carry_the_active_neighbours(make_video, annotator):
    video = make_video()
    first, middle, last = _steps(
        video, annotator, [(0, S, 2 * S), (3 * S, 4 * S, 5 * S), (6 * S, 7 * S, 8 * S)]
    )
    step_retract(step=middle, author=annotator, version=1)
    jobs = render_jobs(MicroStep.objects.filter(video=video))
    assert [j.subject for j in jobs] == [f"step {first.uid}", f"step {last.uid}"]
    assert jobs[0].previous is None and jobs[0].following.start_us == 6 * S
    assert jobs[1].previous.start_us == 0 and jobs[1].following is None
    assert jobs[0].seed != jobs[1].seed


@pytest.fixture
def real_video(scene, tmp_path, annotator):
    from media.services import video_import

    path = tmp_path / "short.mp4"
    synth_video(path, seconds=3, fps=30, size=(320, 180))
    video = video_import(path=path, scene=scene)
    VideoAssignment.objects.create(video=video, annotator=annotator)
    times = video.frame_times_us()
    # Step 1: frames 10..29 shown (cutoff at frame 30); step 2 starts where step 1 ends.
    _steps(
        video,
        annotator,
        [
            (int(times[10]), int(times[30]), int(times[40])),
            (int(times[40]), int(times[60]), int(times[70])),
        ],
    )
    return video


def test_command_pipeline_renders_official_clips_ending_before_the_cutoff(real_video, monkeypatch):
    out = io.StringIO()
    call_command(
        "step_render_jobs", "--video", str(real_video.pk), stdout=out, stderr=io.StringIO()
    )
    jobs = json.loads(out.getvalue())
    assert [job["next"] is not None for job in jobs] == [True, False]
    monkeypatch.setattr(sys, "stdin", io.StringIO(out.getvalue()))
    call_command(
        "render_media", "--jobs", "-", "--conditions", "official", "--profiles", "clip",
        "--inline", stdout=io.StringIO(), stderr=io.StringIO(),
    )  # fmt: skip
    clips = RenderedMedia.objects.filter(status=RenderedMedia.Status.READY).order_by("pk")
    assert clips.count() == 2
    numbers = read_frame_numbers(default_storage.path(clips[0].path))
    assert numbers == list(range(10, 30))


def test_admin_action_queues_a_batch_for_the_selected_steps(real_video, admin_user, client):
    client.force_login(admin_user)
    ids = list(MicroStep.objects.values_list("pk", flat=True))
    response = client.post(
        "/admin/annotation/microstep/",
        {"action": "render_official", "_selected_action": ids},
    )
    batch = RenderBatch.objects.get()
    assert response.status_code == 302
    assert response["Location"].endswith(f"/admin/media/renderbatch/{batch.pk}/change/")
    # Two steps x the Official condition x (clip, 16 frames).
    assert batch.items.count() == 4

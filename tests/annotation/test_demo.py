"""The demo seed: real generated videos, a dozen steps, one user per role, only once."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotation.models import MicroStep, VideoAssignment
from media.models import SourceVideo
from studio.roles import ROLES, roles_of


@pytest.mark.django_db
def test_seed_demo_fills_an_empty_database_once(settings):
    settings.STUDIO_DEMO_PASSWORD = "demo-pass-for-tests"
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    assert "Demo seeded" in out.getvalue()
    assert "demo-pass-for-tests" not in out.getvalue()  # a chosen password is not echoed

    users = get_user_model().objects.filter(username__startswith="demo-")
    assert {role for user in users for role in roles_of(user)} == set(ROLES)
    assert all(user.check_password("demo-pass-for-tests") for user in users)

    videos = list(SourceVideo.objects.all())
    assert len(videos) == 2 and sum(v.is_vfr for v in videos) == 1
    assert all(50_000_000 <= v.duration_us <= 70_000_000 for v in videos)
    assert MicroStep.objects.filter(status="active").count() == 12
    assert all(step.local_intent and step.next_step for step in MicroStep.objects.all())
    assert VideoAssignment.objects.filter(annotator__username="demo-annotator").count() == 2
    # Every mark sits on a frame of its video (or the end of the video).
    for video in videos:
        frames = set(video.frame_times_us().tolist()) | {video.duration_us}
        for step in video.steps.all():
            assert {step.start_us, step.cutoff_us, step.outcome_us, step.end_us} <= frames

    again = io.StringIO()
    call_command("seed_demo", stdout=again)
    assert "not seeded" in again.getvalue()
    assert SourceVideo.objects.count() == 2


@pytest.mark.django_db
def test_seed_demo_prints_a_generated_password_once(settings, monkeypatch):
    import annotation.demo

    short = annotation.demo.DemoVideo(
        "short.mp4", "indoor/kitchen", False, 3, annotation.demo.DEMO_VIDEOS[0].steps[:1]
    )
    monkeypatch.setattr(annotation.demo, "DEMO_VIDEOS", (short,))
    settings.STUDIO_DEMO_PASSWORD = None
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    password = out.getvalue().rsplit("with the password: ", 1)[1].strip()
    assert get_user_model().objects.get(username="demo-admin").check_password(password)


@pytest.mark.django_db
def test_registered_seeders_extend_the_demo_in_order(monkeypatch):
    from annotation.demo import seed_demo
    from studio import demo

    monkeypatch.setattr(demo, "_SEEDERS", {})
    calls = []

    @demo.demo_seeder(order=20)
    def second(ctx):
        calls.append(("second", ctx.users["auditor"].username))
        ctx.add_user("demo-auditor-b", "auditor")
        ctx.notes.append("An audit is waiting.")

    @demo.demo_seeder(order=10)
    def first(ctx):
        calls.append(("first", len(ctx.extra_users)))

    _, names, notes = seed_demo(password="seeders-pass")
    assert calls == [("first", 0), ("second", "demo-auditor")]
    assert "demo-auditor-b" in names and notes == ["An audit is waiting."]
    extra = get_user_model().objects.get(username="demo-auditor-b")
    assert extra.check_password("seeders-pass") and roles_of(extra) == {"auditor"}

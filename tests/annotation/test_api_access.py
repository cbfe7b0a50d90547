"""The assigned annotator and admins read and edit a video's workspace and its steps;
adjudicators read every video and every write of theirs is refused with 403; everyone else gets
404 from every endpoint (never 403, so ids cannot be probed) and changes nothing."""

from __future__ import annotations

import pytest

from annotation.models import MicroStep, StepRevision
from annotation.services import step_create

S = 1_000_000
API = "/api/annotation"


@pytest.fixture
def step(video, annotator):
    return step_create(
        video=video,
        author=annotator,
        start_us=0,
        cutoff_us=S,
        outcome_us=S,
        end_us=2 * S,
        local_intent="lift the lid",
    )


def reads(video, step):
    return [
        f"{API}/videos/{video.pk}/workspace/",
        f"{API}/videos/{video.pk}/frame-times/",
        f"{API}/videos/{video.pk}/source/",
        f"{API}/steps/{step.pk}/",
        f"{API}/steps/{step.pk}/history/",
        f"/annotate/videos/{video.pk}/",
        f"/annotate/steps/{step.pk}/history/",
    ]


def writes(video, step):
    return [
        (
            "post",
            f"{API}/videos/{video.pk}/steps/",
            {"start_us": 3 * S, "cutoff_us": 4 * S, "outcome_us": 4 * S, "end_us": 5 * S},
        ),
        ("patch", f"{API}/steps/{step.pk}/", {"version": 1, "local_intent": "hacked"}),
        ("post", f"{API}/steps/{step.pk}/retract/", {"version": 1}),
        ("post", f"{API}/steps/{step.pk}/restore/", {"version": 1}),
        ("post", f"{API}/steps/{step.pk}/split/", {"version": 1, "at_us": S // 2}),
        ("post", f"{API}/steps/{step.pk}/merge/", {"version": 1, "next_version": 1}),
        ("post", f"{API}/steps/{step.pk}/preview/", {}),
    ]


@pytest.mark.parametrize("role", ["other_annotator", "auditor", "rater"])
def test_everyone_without_read_access_gets_404_everywhere(request, login, video, step, role):
    outsider = login(request.getfixturevalue(role))
    for url in reads(video, step):
        assert outsider.get(url).status_code == 404, url
    for method, url, body in writes(video, step):
        assert getattr(outsider, method)(url, body).status_code == 404, url
    step.refresh_from_db()
    assert (step.version, step.local_intent, step.status) == (1, "lift the lid", "active")
    assert MicroStep.objects.count() == 1 and StepRevision.objects.count() == 1


@pytest.mark.parametrize("role", ["annotator", "admin_user"])
def test_the_assignee_and_admins_reach_and_edit(request, login, video, step, role):
    user = login(request.getfixturevalue(role))
    for url in reads(video, step):
        status = user.get(url).status_code
        # The fixture video is a row without a file, so only its source answers 404.
        assert status == (404 if url.endswith("/source/") else 200), url
    r = user.patch(f"{API}/steps/{step.pk}/", {"version": 1, "local_intent": "lift the lid off"})
    assert r.status_code == 200
    r = user.post(
        f"{API}/videos/{video.pk}/steps/",
        {"start_us": 3 * S, "cutoff_us": 4 * S, "outcome_us": 4 * S, "end_us": 5 * S},
    )
    assert r.status_code == 201


def test_an_annotator_cannot_touch_a_step_through_another_video(
    login, make_video, other_annotator, annotator, step
):
    from annotation.models import VideoAssignment

    theirs = make_video(title="theirs.mp4")
    VideoAssignment.objects.create(video=theirs, annotator=other_annotator)
    otto = login(other_annotator)
    assert otto.get(f"{API}/videos/{theirs.pk}/workspace/").status_code == 200
    assert otto.get(f"{API}/steps/{step.pk}/").status_code == 404
    assert otto.patch(f"{API}/steps/{step.pk}/", {"version": 1}).status_code == 404


def test_unknown_ids_are_404(login, annotator):
    anna = login(annotator)
    assert anna.get(f"{API}/videos/999999/workspace/").status_code == 404
    assert anna.get(f"{API}/steps/999999/").status_code == 404


def test_the_adjudicator_reads_every_video_and_every_write_is_refused_with_403(
    login, video, step, adjudicator
):
    adam = login(adjudicator)
    for url in reads(video, step):
        status = adam.get(url).status_code
        assert status == (404 if url.endswith("/source/") else 200), url
    assert adam.get(f"{API}/steps/{step.pk}/").json()["local_intent"] == "lift the lid"
    for method, url, body in writes(video, step):
        r = getattr(adam, method)(url, body)
        assert r.status_code == 403, url
        assert r.json()["detail"] == "Your role reads this video's annotation; it cannot change it."
    # A write to a step that does not exist is still a 404, and nothing changed.
    assert adam.patch(f"{API}/steps/999999/", {"version": 1}).status_code == 404
    step.refresh_from_db()
    assert (step.version, step.local_intent, step.status) == (1, "lift the lid", "active")
    assert MicroStep.objects.count() == 1 and StepRevision.objects.count() == 1


def test_an_adjudicator_who_also_annotates_edits_only_their_assignments(
    login, video, step, make_video, adjudicator
):
    from django.contrib.auth.models import Group

    from annotation.models import VideoAssignment
    from studio.roles import ANNOTATOR

    adjudicator.groups.add(Group.objects.get(name=ANNOTATOR))
    own = make_video(title="own.mp4")
    VideoAssignment.objects.create(video=own, annotator=adjudicator)
    adam = login(adjudicator)
    new = {"start_us": 0, "cutoff_us": S, "outcome_us": S, "end_us": 2 * S}
    assert adam.post(f"{API}/videos/{own.pk}/steps/", new).status_code == 201
    assert (
        adam.patch(f"{API}/steps/{step.pk}/", {"version": 1, "local_intent": "x"}).status_code
        == 403
    )

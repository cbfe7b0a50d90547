"""One access path: a user reaches only the videos and steps their role allows."""

import pytest
from django.core.exceptions import PermissionDenied
from django.http import Http404

from annotation.models import VideoAssignment
from annotation.selectors import step_for_or_404, video_for_or_404, videos_for
from annotation.services import step_create

S = 1_000_000


@pytest.fixture
def assigned(make_video, annotator, other_annotator):
    mine, theirs = make_video(title="mine.mp4"), make_video(title="theirs.mp4")
    VideoAssignment.objects.create(video=mine, annotator=annotator)
    VideoAssignment.objects.create(video=theirs, annotator=other_annotator)
    step = step_create(
        video=theirs, author=other_annotator, start_us=0, cutoff_us=S, outcome_us=S, end_us=2 * S
    )
    return mine, theirs, step


def test_annotator_sees_only_assigned_videos(assigned, annotator):
    mine, _theirs, _ = assigned
    assert list(videos_for(annotator)) == [mine]


def test_annotator_cannot_reach_other_annotators_video_or_steps(assigned, annotator):
    _, theirs, step = assigned
    with pytest.raises(Http404):
        video_for_or_404(annotator, theirs.pk)
    with pytest.raises(Http404):
        step_for_or_404(annotator, step.pk)
    with pytest.raises(Http404):
        step_for_or_404(annotator, step.pk, edit=True)


@pytest.mark.parametrize("role_fixture", ["auditor", "rater"])
def test_blind_roles_reach_no_annotation(assigned, request, role_fixture):
    user = request.getfixturevalue(role_fixture)
    _, _theirs, step = assigned
    assert not videos_for(user).exists()
    with pytest.raises(Http404):
        step_for_or_404(user, step.pk)


def test_adjudicator_reads_everything_but_edits_nothing(assigned, adjudicator):
    _, theirs, step = assigned
    assert step_for_or_404(adjudicator, step.pk) == step
    assert set(videos_for(adjudicator)) == set(assigned[:2])
    # They know the video exists already: a write is forbidden (403), not hidden (404).
    with pytest.raises(PermissionDenied):
        video_for_or_404(adjudicator, theirs.pk, edit=True)
    with pytest.raises(PermissionDenied):
        step_for_or_404(adjudicator, step.pk, edit=True)
    with pytest.raises(Http404):
        step_for_or_404(adjudicator, 999_999, edit=True)


def test_admin_reaches_and_edits_everything(assigned, admin_user):
    mine, theirs, step = assigned
    assert set(videos_for(admin_user)) == {mine, theirs}
    assert step_for_or_404(admin_user, step.pk, edit=True) == step


def test_video_list_page_lists_only_my_videos(assigned, annotator, client):
    client.force_login(annotator)
    page = client.get("/annotate/").content.decode()
    assert "mine.mp4" in page and "theirs.mp4" not in page


def test_garbage_ids_are_404_not_500(annotator):
    for bad in ("abc", None, -1):
        with pytest.raises(Http404):
            video_for_or_404(annotator, bad)

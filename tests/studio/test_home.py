"""The home page: per role held, a card with the next thing to do (link and count) or a sentence
saying what the role will see and who assigns it."""

import pytest
from django.contrib.auth.models import Group

from annotation.models import VideoAssignment
from annotation.services import step_create
from studio import home
from studio.home import HomeCard, home_cards_for

S = 1_000_000


def _step(video, author, i, **labels):
    return step_create(
        video=video,
        author=author,
        start_us=i * 2 * S,
        cutoff_us=i * 2 * S + S,
        outcome_us=i * 2 * S + S,
        end_us=(i + 1) * 2 * S,
        **labels,
    )


LABELS = {"local_intent": "a", "procedural_intent": "b", "next_step": "c"}


def _card(cards, role, title):
    return next(c for c in cards if c.role == role and c.title == title)


def test_annotator_card_counts_assigned_videos_and_steps_with_open_problems(
    make_video, annotator, other_annotator
):
    mine, theirs = make_video(title="mine.mp4"), make_video(title="theirs.mp4")
    VideoAssignment.objects.create(video=mine, annotator=annotator)
    VideoAssignment.objects.create(video=theirs, annotator=other_annotator)
    _step(mine, annotator, 0, **LABELS)
    _step(mine, annotator, 1, local_intent="only one label")
    _step(theirs, other_annotator, 0)
    cards = home_cards_for(annotator)
    videos = _card(cards, "annotator", "My videos")
    assert (videos.count, videos.count_words, videos.url) == (1, "video assigned", "/annotate/")
    problems = _card(cards, "annotator", "Open problems")
    assert problems.count == 1
    assert problems.url == f"/annotate/videos/{mine.pk}/"
    assert "First: Step 2 of mine.mp4." in problems.text


def test_annotator_without_problems_gets_no_problem_card(make_video, annotator):
    video = make_video()
    VideoAssignment.objects.create(video=video, annotator=annotator)
    _step(video, annotator, 0, **LABELS)
    assert [c.title for c in home_cards_for(annotator)] == ["My videos"]


def test_annotator_without_assignment_is_told_who_assigns_videos(annotator):
    (card,) = home_cards_for(annotator)
    assert card.role == "annotator" and card.count is None and not card.url
    assert "admin assigns" in card.text


@pytest.mark.parametrize(
    ("role", "words"), [("auditor", "audit campaign"), ("rater", "rating campaign")]
)
def test_roles_with_nothing_yet_get_a_sentence_saying_what_comes_and_from_whom(
    request, role, words
):
    user = request.getfixturevalue(role)
    (card,) = home_cards_for(user)
    assert card.role == role and words in card.text and "admin" in card.text


def test_adjudicator_card_links_to_every_video_with_steps(make_video, annotator, adjudicator):
    for i in range(3):
        video = make_video()
        if i:
            _step(video, annotator, 0)
    (card,) = home_cards_for(adjudicator)
    assert (card.count, card.count_words, card.url) == (2, "videos with steps", "/annotate/")
    assert "read-only" in card.text


def test_admin_cards_say_what_to_do_next(make_video, annotator, admin_user):
    cards = home_cards_for(admin_user)
    assert _card(cards, "admin", "Videos").url == "/admin/media/sourcevideo/import/"
    assert _card(cards, "admin", "Releases").count == 0
    assert _card(cards, "admin", "Render batches").count == 0
    assert _card(cards, "admin", "Campaigns").url == "/admin/review/campaign/"
    VideoAssignment.objects.create(video=make_video(), annotator=annotator)
    make_video()
    assignments = _card(home_cards_for(admin_user), "admin", "Assignments")
    assert (assignments.count, assignments.count_words) == (1, "video without an annotator")


def test_cards_are_sorted_by_role_then_order(make_video, annotator, admin_user):
    annotator.groups.add(Group.objects.get(name="admin"))
    VideoAssignment.objects.create(video=make_video(), annotator=annotator)
    cards = home_cards_for(annotator)
    # Videos, releases, renders, runs, campaigns.
    assert [c.role for c in cards] == ["annotator"] + ["admin"] * 5
    admin_orders = [c.order for c in cards if c.role == "admin"]
    assert admin_orders == sorted(admin_orders)


def test_a_card_of_a_role_the_user_lacks_is_never_shown(monkeypatch, rater):
    def leaky(user):
        yield HomeCard(role="admin", title="Secret counts", text="42 things", count=42)
        yield HomeCard(role="rater", title="Ratings", text="Rate", count=3, order=5)

    monkeypatch.setattr(home, "_PROVIDERS", [*home._PROVIDERS, leaky])
    cards = home_cards_for(rater)
    assert [(c.role, c.title) for c in cards] == [("rater", "Ratings")]  # no waiting sentence


def test_a_card_needs_a_known_role():
    with pytest.raises(ValueError, match="Unknown role"):
        HomeCard(role="reviewer", title="x", text="y")


def test_home_page_renders_each_card_with_its_count_and_link(client, make_video, annotator):
    VideoAssignment.objects.create(video=make_video(title="tea.mp4"), annotator=annotator)
    client.force_login(annotator)
    page = client.get("/").content.decode()
    assert 'data-role="annotator"' in page
    assert "<strong data-count>1</strong> video assigned" in page
    assert 'href="/annotate/"' in page


def test_user_without_a_role_is_told_to_ask_an_admin(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("nobody", password="x" * 12))
    assert "no role yet" in client.get("/").content.decode()


@pytest.mark.parametrize(
    ("path", "current"),
    [("/", "Home"), ("/annotate/", "Videos"), ("/annotate/steps/1/history/", "Videos")],
)
def test_navigation_marks_the_current_page(client, admin_user, path, current):
    from studio.navigation import nav_links_for

    links = nav_links_for(admin_user, path)
    assert [x["label"] for x in links if x["current"]] == [current]
    assert [x["label"] for x in links] == [
        "Home",
        "Videos",
        "Runs",
        "Studies",
        "Leaderboard",
        "Admin",
        "API",
    ]


def test_navigation_shows_a_role_only_its_links(client, rater):
    client.force_login(rater)
    page = client.get("/").content.decode()
    assert 'aria-current="page">Home</a>' in page
    assert "/annotate/" not in page and "/admin/" not in page

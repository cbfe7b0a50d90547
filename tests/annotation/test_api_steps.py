"""The workspace API's writes: create, autosave with versions, conflicts, retries, split, merge,
retract, restore, history. Bad input answers 4xx and writes nothing."""

from __future__ import annotations

import re
import uuid

import pytest

from annotation.models import MicroStep, StepRevision
from annotation.services import step_create

S = 1_000_000
API = "/api/annotation"


def times(start, cutoff, outcome, end):
    return {"start_us": start, "cutoff_us": cutoff, "outcome_us": outcome, "end_us": end}


@pytest.fixture
def anna(login, annotator):
    return login(annotator)


@pytest.fixture
def step(video, annotator):
    return step_create(
        video=video,
        author=annotator,
        local_intent="open the drawer",
        **times(0, S, S + S // 2, 2 * S),
    )


def test_it_creates_a_step_and_its_first_revision(anna, video):
    r = anna.post(
        f"{API}/videos/{video.pk}/steps/",
        {**times(0, S, S, 2 * S), "local_intent": "pick up the cup"},
    )
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["replayed"] is False
    (created,) = body["steps"]
    assert created["version"] == 1 and created["local_intent"] == "pick up the cup"
    assert {p["field"] for p in created["problems"]} == {"procedural_intent", "next_step"}
    assert StepRevision.objects.filter(step_id=created["id"], action="create").count() == 1


def test_a_retried_create_with_the_same_uid_returns_the_same_step(anna, video):
    uid = str(uuid.uuid4())
    body = {**times(0, S, S, 2 * S), "uid": uid}
    first = anna.post(f"{API}/videos/{video.pk}/steps/", body)
    again = anna.post(f"{API}/videos/{video.pk}/steps/", body)
    assert first.status_code == 201 and again.status_code == 200
    assert again.json()["replayed"] is True
    assert first.json()["steps"][0]["id"] == again.json()["steps"][0]["id"]
    assert MicroStep.objects.filter(video=video).count() == 1
    assert StepRevision.objects.filter(step__video=video).count() == 1


@pytest.mark.parametrize(
    ("values", "field"),
    [
        (times(0, 0, S, 2 * S), "cutoff_us"),  # start == cutoff
        (times(0, 2 * S, S, 2 * S), "outcome_us"),  # outcome before cutoff
        (times(0, S, 3 * S, 2 * S), "end_us"),  # end before outcome
        (times(0, S, S, 11 * S), "end_us"),  # longer than 10 s
        (times(59 * S, 60 * S, 60 * S, 61 * S), "end_us"),  # past the end of the video
    ],
)
def test_invalid_times_get_400_naming_the_field_and_write_nothing(anna, video, values, field):
    r = anna.post(f"{API}/videos/{video.pk}/steps/", values)
    assert r.status_code == 400
    assert field in r.json()["errors"]
    assert r.json()["detail"]
    assert not MicroStep.objects.exists() and not StepRevision.objects.exists()


def test_overlapping_create_is_refused(anna, video, step):
    r = anna.post(f"{API}/videos/{video.pk}/steps/", times(S, 2 * S, 2 * S, 3 * S))
    assert r.status_code == 400
    assert "Overlaps step 1" in r.json()["errors"]["start_us"][0]
    assert MicroStep.objects.count() == 1


@pytest.mark.parametrize(
    "body",
    [
        {"start_us": "zero"},
        {"start_us": 1.5},
        {"local_intent": 3},
        {"plausible_next_steps": "not a list"},
        {"local_intent": "\ud800"},  # a lone surrogate: not text (studio/text.py)
        {"next_step": "a\x00b"},
        {"plausible_next_steps": ["fine", "\udc00x"]},
        {"tags": ["\ud83d"]},
        {"reason": "why\x00"},
    ],
)
def test_malformed_values_get_400(anna, step, body):
    r = anna.patch(f"{API}/steps/{step.pk}/", {"version": 1, **body})
    assert r.status_code == 400
    assert set(r.json()["errors"]) == set(body)
    step.refresh_from_db()
    assert step.version == 1


def test_a_save_without_version_is_refused(anna, step):
    r = anna.patch(f"{API}/steps/{step.pk}/", {"local_intent": "x"})
    assert r.status_code == 400 and "version" in r.json()["errors"]
    assert r.json()["detail"] == "This field is required."
    assert StepRevision.objects.filter(step=step).count() == 1


def test_autosave_bumps_the_version_and_records_who_and_why(anna, annotator, step):
    r = anna.patch(
        f"{API}/steps/{step.pk}/",
        {
            "version": 1,
            "procedural_intent": "to get a spoon",
            "plausible_next_steps": ["take a fork", "  ", "close the drawer"],
            "reason": "typo",
        },
    )
    assert r.status_code == 200, r.content
    (saved,) = r.json()["steps"]
    assert saved["version"] == 2
    assert saved["plausible_next_steps"] == ["take a fork", "close the drawer"]
    revision = StepRevision.objects.get(step=step, version=2)
    assert revision.author == annotator and revision.reason == "typo"
    assert revision.previous["procedural_intent"] == ""
    assert revision.values["procedural_intent"] == "to get a spoon"


def test_a_stale_save_gets_409_with_the_stored_version_and_writes_nothing(
    anna, login, admin_user, step
):
    admin = login(admin_user)
    assert (
        admin.patch(
            f"{API}/steps/{step.pk}/", {"version": 1, "local_intent": "stored text"}
        ).status_code
        == 200
    )
    r = anna.patch(f"{API}/steps/{step.pk}/", {"version": 1, "local_intent": "my text"})
    assert r.status_code == 409
    stored = r.json()["stored"]
    assert stored["version"] == 2 and stored["local_intent"] == "stored text"
    assert StepRevision.objects.filter(step=step).count() == 2
    # The annotator merges and saves on the stored version: both texts are in the history.
    r = anna.patch(
        f"{API}/steps/{step.pk}/",
        {"version": 2, "local_intent": "stored text; my text", "reason": "merge"},
    )
    assert r.status_code == 200
    texts = [
        v["local_intent"]
        for v in StepRevision.objects.filter(step=step)
        .order_by("version")
        .values_list("values", flat=True)
    ]
    assert texts == ["open the drawer", "stored text", "stored text; my text"]


def test_a_retried_save_after_a_lost_response_is_acknowledged_once(anna, step):
    body = {"version": 1, "local_intent": "open the top drawer", "next_step": "take a spoon"}
    first = anna.patch(f"{API}/steps/{step.pk}/", body)
    retry = anna.patch(f"{API}/steps/{step.pk}/", body)
    assert first.status_code == 200 and retry.status_code == 200
    assert first.json()["replayed"] is False and retry.json()["replayed"] is True
    assert retry.json()["steps"][0]["version"] == 2
    assert StepRevision.objects.filter(step=step).count() == 2


def test_a_retry_by_someone_else_or_with_other_values_is_still_a_conflict(
    anna, login, admin_user, step
):
    body = {"version": 1, "local_intent": "open the top drawer"}
    assert anna.patch(f"{API}/steps/{step.pk}/", body).status_code == 200
    assert login(admin_user).patch(f"{API}/steps/{step.pk}/", body).status_code == 409
    other = {"version": 1, "local_intent": "open the bottom drawer"}
    assert anna.patch(f"{API}/steps/{step.pk}/", other).status_code == 409
    assert StepRevision.objects.filter(step=step).count() == 2


def test_saving_identical_values_writes_no_revision(anna, step):
    r = anna.patch(f"{API}/steps/{step.pk}/", {"version": 1, "local_intent": "open the drawer"})
    assert r.status_code == 200 and r.json()["steps"][0]["version"] == 1
    assert StepRevision.objects.filter(step=step).count() == 1


def test_moving_an_edge_into_a_neighbour_is_refused(anna, video, annotator, step):
    later = step_create(video=video, author=annotator, **times(3 * S, 4 * S, 4 * S, 5 * S))
    r = anna.patch(f"{API}/steps/{later.pk}/", {"version": 1, "start_us": S})
    assert r.status_code == 400 and "start_us" in r.json()["errors"]
    later.refresh_from_db()
    assert later.start_us == 3 * S and later.version == 1


def test_retract_keeps_the_rows_and_restore_brings_the_step_back(anna, step):
    r = anna.post(f"{API}/steps/{step.pk}/retract/", {"version": 1, "reason": "duplicate"})
    assert r.status_code == 200
    assert r.json()["steps"][0]["status"] == "retracted"
    assert MicroStep.objects.filter(pk=step.pk).exists()
    assert (
        anna.patch(f"{API}/steps/{step.pk}/", {"version": 2, "local_intent": "x"}).status_code
        == 400
    )
    r = anna.post(f"{API}/steps/{step.pk}/restore/", {"version": 2})
    assert r.status_code == 200 and r.json()["steps"][0]["status"] == "active"
    actions = list(StepRevision.objects.filter(step=step).values_list("action", flat=True))
    assert actions == ["create", "retract", "restore"]


def test_a_stale_retract_gets_409(anna, step):
    r = anna.post(f"{API}/steps/{step.pk}/retract/", {"version": 7})
    assert r.status_code == 409 and r.json()["stored"]["version"] == 1
    step.refresh_from_db()
    assert step.status == "active"


def test_split_makes_two_steps_that_tile_the_original(anna, step):
    r = anna.post(f"{API}/steps/{step.pk}/split/", {"version": 1, "at_us": 1_200_000})
    assert r.status_code == 200, r.content
    first, second = r.json()["steps"]
    assert (first["id"], first["version"]) == (step.pk, 2)
    assert (first["start_us"], first["cutoff_us"], first["outcome_us"], first["end_us"]) == (
        0,
        S,
        1_200_000,
        1_200_000,
    )
    assert (second["start_us"], second["cutoff_us"], second["outcome_us"], second["end_us"]) == (
        1_200_000,
        1_500_000,
        1_500_000,
        2 * S,
    )
    assert first["local_intent"] == "open the drawer" and second["local_intent"] == ""
    assert (first["position"], second["position"]) == (0, 1)
    assert StepRevision.objects.get(step_id=second["id"]).action == "split"


@pytest.mark.parametrize("at", [0, 2 * S, 3 * S])
def test_split_outside_the_step_is_refused(anna, step, at):
    r = anna.post(f"{API}/steps/{step.pk}/split/", {"version": 1, "at_us": at})
    assert r.status_code == 400 and "at_us" in r.json()["errors"]
    assert MicroStep.objects.count() == 1


def test_merge_joins_the_next_step_and_retracts_it_keeping_its_text(anna, video, annotator, step):
    following = step_create(
        video=video,
        author=annotator,
        procedural_intent="to set the table",
        plausible_next_steps=["wipe the counter"],
        **times(3 * S, 4 * S, 4 * S, 5 * S),
    )
    r = anna.post(f"{API}/steps/{step.pk}/merge/", {"version": 1, "next_version": 1})
    assert r.status_code == 200, r.content
    merged, retracted = r.json()["steps"]
    assert (merged["start_us"], merged["cutoff_us"], merged["end_us"]) == (0, S, 5 * S)
    assert merged["local_intent"] == "open the drawer"
    assert merged["procedural_intent"] == "to set the table"
    assert merged["plausible_next_steps"] == ["wipe the counter"]
    assert retracted["id"] == following.pk and retracted["status"] == "retracted"
    assert retracted["procedural_intent"] == "to set the table"


def test_merge_beyond_ten_seconds_or_with_a_stale_neighbour_writes_nothing(
    anna, video, annotator, step
):
    far = step_create(video=video, author=annotator, **times(9 * S, 10 * S, 10 * S, 11 * S))
    r = anna.post(f"{API}/steps/{step.pk}/merge/", {"version": 1, "next_version": 1})
    assert r.status_code == 400 and "end_us" in r.json()["errors"]
    r = anna.post(f"{API}/steps/{step.pk}/merge/", {"version": 1, "next_version": 5})
    assert r.status_code == 409 and r.json()["stored"]["id"] == far.pk
    assert MicroStep.objects.filter(status="active").count() == 2
    assert StepRevision.objects.count() == 2


def test_merging_the_last_step_is_refused(anna, step):
    r = anna.post(f"{API}/steps/{step.pk}/merge/", {"version": 1, "next_version": 1})
    assert r.status_code == 400 and "merge" in r.json()["errors"]


def test_history_lists_who_when_why_and_the_diff(anna, step):
    anna.patch(
        f"{API}/steps/{step.pk}/",
        {"version": 1, "local_intent": "open the top drawer", "reason": "more precise"},
    )
    r = anna.get(f"{API}/steps/{step.pk}/history/")
    assert r.status_code == 200
    latest, first = r.json()["revisions"]
    assert latest["version"] == 2 and latest["author"] == "anna"
    assert latest["reason"] == "more precise" and latest["action"] == "update"
    assert latest["action_name"] == "Edited"
    assert latest["changes"] == [
        {
            "field": "local_intent",
            "name": "Local intent",
            "before": "open the drawer",
            "after": "open the top drawer",
            "before_text": "open the drawer",
            "after_text": "open the top drawer",
        }
    ]
    # ISO 8601 to the second with the zone's offset; the text as the history page shows it.
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", latest["created_at"])
    at = latest["created_at"]
    assert latest["created_at_text"] == f"{at[:10]} {at[11:19]} UTC"
    assert r.json()["title"] == f"Step 1 of {step.video.title}"
    assert first["action"] == "create"
    assert {c["field"] for c in first["changes"]} >= {"start_us", "local_intent", "status"}
    texts = {c["field"]: c["after_text"] for c in first["changes"]}
    times = step.video.frame_times_us().tolist()
    assert texts["cutoff_us"].endswith(f" · last shown #{times.index(step.cutoff_us) - 1}")
    assert texts["status"] == "Active" and "µs" not in str(texts)


def test_unsafe_requests_need_the_csrf_token(login, annotator, step):
    strict = login(annotator, enforce_csrf=True)
    r = strict.patch(f"{API}/steps/{step.pk}/", {"version": 1, "local_intent": "x"})
    assert r.status_code == 403
    assert StepRevision.objects.filter(step=step).count() == 1


def test_anonymous_requests_are_refused(client, step):
    assert client.get(f"{API}/steps/{step.pk}/").status_code in (401, 403)


def test_preview_requests_the_official_clip_once_for_the_saved_times(anna, video, step):
    from media.models import RenderedMedia

    first = anna.post(f"{API}/steps/{step.pk}/preview/")
    again = anna.post(f"{API}/steps/{step.pk}/preview/")
    assert first.status_code == again.status_code == 200
    body = first.json()
    assert body["status"] == "pending" and body["url"] is None
    # [0, 1 s) at 30 fps: frames 0..29, the last one is the frame before the cutoff.
    assert (body["first_frame"], body["last_frame"], body["frame_count"]) == (0, 29, 30)
    media = RenderedMedia.objects.get()
    assert media.spec["frames"] == list(range(30))


def test_a_retracted_step_has_no_preview(anna, step):
    anna.post(f"{API}/steps/{step.pk}/retract/", {"version": 1})
    r = anna.post(f"{API}/steps/{step.pk}/preview/")
    assert r.status_code == 400 and "status" in r.json()["errors"]


@pytest.mark.parametrize(
    ("at", "first", "second"),
    [
        # cutoff and outcome before the split: the second part gets its end as both marks
        (18, (0, 10, 15, 18), (18, 20, 20, 20)),
        # the split falls between cutoff and outcome: the outcome moves to the second part
        (12, (0, 10, 12, 12), (12, 15, 15, 20)),
        # the split falls before the cutoff: both marks move to the second part
        (5, (0, 5, 5, 5), (5, 10, 15, 20)),
    ],
)
def test_split_marks_keep_every_rule_in_both_parts(at, first, second):
    from annotation.services import split_marks

    a, b = split_marks(start_us=0, cutoff_us=10, outcome_us=15, end_us=20, at_us=at)
    assert tuple(a.values()) == first and tuple(b.values()) == second
    for part in (a, b):
        assert part["start_us"] < part["cutoff_us"] <= part["outcome_us"] <= part["end_us"]


def test_a_uid_of_someone_elses_step_is_refused(anna, login, admin_user, video):
    uid = str(uuid.uuid4())
    body = {**times(0, S, S, 2 * S), "uid": uid}
    assert login(admin_user).post(f"{API}/videos/{video.pk}/steps/", body).status_code == 201
    r = anna.post(
        f"{API}/videos/{video.pk}/steps/", {**times(3 * S, 4 * S, 4 * S, 5 * S), "uid": uid}
    )
    assert r.status_code == 400 and "uid" in r.json()["errors"]
    assert MicroStep.objects.count() == 1

"""How values read for people: one vocabulary (a code's one label, declared once), timecodes
with the workspace's frame words and never a microsecond count, moments to the second in the
person's time zone, counts with the right form, errors that name their field as pages do."""

from datetime import UTC, datetime

import pytest
from django import forms
from django.template import Context, Template
from django.utils import timezone

from studio import display
from studio.vocabulary import (
    field_label,
    humanise,
    in_sentence,
    label,
    named_errors,
    vocabularies,
    vocabulary,
)


def test_a_timecode_names_the_frame_as_the_workspace_does():
    # boundary 126: the first frame at or after the mark
    assert display.timecode(4_200_000, frame=126, mark="start_us") == "0:04.200 · frame #126"
    assert display.timecode(4_200_000, frame=126, mark="cutoff_us") == "0:04.200 · last shown #125"
    assert display.timecode(4_200_000, frame=126, mark="end") == "0:04.200 · last #125"
    assert display.timecode(4_200_000) == "0:04.200"
    assert display.timecode(None) == "—"
    assert display.span(12_000_000, 13_400_000) == "0:12.000\u20130:13.400"
    assert display.duration(60_000_000, frames=1800) == "1:00.000 · 1800 frames"
    assert display.duration(33_333, frames=1) == "0:00.033 · 1 frame"
    for text in (display.timecode(4_200_000, frame=1), display.span(1, 2)):
        assert "µs" not in text


def test_counts_take_the_form_of_their_number():
    assert display.count(1, "criterion", "criteria") == "1 criterion"
    assert display.count(3, "criterion", "criteria") == "3 criteria"
    html = Template('{% load studio_tags %}{{ n|count:"window,windows" }}').render(
        Context({"n": 1})
    )
    assert html == "1 window"


def test_a_moment_is_to_the_second_in_the_current_time_zone_with_its_name():
    moment = datetime(2026, 3, 1, 14, 5, 9, 123456, tzinfo=UTC)
    assert display.moment(moment) == "2026-03-01 14:05:09 UTC"
    with timezone.override("Europe/Paris"):
        assert display.moment(moment) == "2026-03-01 15:05:09 CET"
        assert display.moment("2026-03-01T14:05:09.792Z") == "2026-03-01 15:05:09 CET"
    assert display.moment(None) == "—"


def test_the_browsers_zone_from_its_cookie_shows_every_moment_in_it(client, make_video, annotator):
    """static/js/time-zone.js stores the browser's zone in the tz cookie; every page then shows
    moments in it. A zone that is not one leaves TIME_ZONE."""
    from zoneinfo import ZoneInfo

    from annotation.models import VideoAssignment
    from annotation.services import step_create

    video = make_video(title="hall.mp4")
    VideoAssignment.objects.create(video=video, annotator=annotator)
    step = step_create(video=video, author=annotator, start_us=0, cutoff_us=1_000_000,
                       outcome_us=1_000_000, end_us=2_000_000)  # fmt: skip
    created = step.revisions.get().created_at
    client.force_login(annotator)
    url = f"/annotate/steps/{step.pk}/history/"
    assert f"{created.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC" in client.get(url).content.decode()
    client.cookies["tz"] = "America/New_York"
    local = created.astimezone(ZoneInfo("America/New_York"))
    assert f"{local:%Y-%m-%d %H:%M:%S} {local.tzname()}" in client.get(url).content.decode()
    for bad in ("Nowhere/Atlantis", "../../etc/passwd", "x" * 200):
        client.cookies["tz"] = bad
        page = client.get(url).content.decode()
        assert f"{created.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC" in page


def test_every_code_has_one_label_and_a_second_declaration_must_agree():
    names = vocabularies()
    for expected in ("condition", "criterion", "error_type", "correction_type", "outcome",
                     "run_kind", "match_type", "qa_decision", "qa_reason", "qa_check",
                     "qa_structure", "qa_modality", "qa_category", "judgeval_reason",
                     "dimension", "study_template", "exclusion_reason"):  # fmt: skip
        assert expected in names, expected
    assert label("condition", "scene_only") == "Scene only"
    assert label("criterion", "C7") == "C7 Next plan validity"
    assert (
        label("error_type", "next_not_immediate") == "Next step is not the immediate continuation"
    )
    assert label("qa_category", "object_state") == "Object state"  # an imported one, humanised
    assert humanise("audio_visual") == "Audio visual"
    assert (
        vocabulary("condition", names["condition"].labels, title="Condition") == names["condition"]
    )
    with pytest.raises(ValueError, match="declared twice"):
        vocabulary("condition", {"official": "Main"}, title="Condition")
    with pytest.raises(ValueError, match="given twice"):
        vocabulary("tmp-words-test", [("a", "A"), ("a", "B")], title="T")
    assert in_sentence("Blind LLM rater") == "blind LLM rater"
    assert in_sentence("QA judge") == "QA judge"


def test_the_label_filter_shows_a_label_and_exports_keep_codes():
    html = Template('{% load studio_tags %}{{ c|label:"condition" }}').render(
        Context({"c": "last_frame"})
    )
    assert html == "Last frame"


def test_errors_name_their_field_as_the_page_labels_it():
    assert field_label("local") == "Local intent"
    assert field_label("C4") == "C4 Local validity"
    assert field_label("outcome_visible") == "Outcome visible"
    assert field_label("turns.1.evidence_alignment") == "Turn 2, Evidence alignment"
    assert field_label("detail") is None
    assert named_errors({"next": ["Give a whole number from 0 to 100."], "detail": ["Gone."]}) == {
        "next": ["Next step: Give a whole number from 0 to 100."],
        "detail": ["Gone."],
    }

    class Form(forms.Form):
        judge_endpoint = forms.IntegerField(label="Judge endpoint")
        name = forms.SlugField()

    form = Form({"name": "bad name!"})
    assert not form.is_valid()
    text = display.form_problems(form)
    assert "Judge endpoint: This field is required." in text and text.startswith("Judge endpoint")
    assert "Name: " in text

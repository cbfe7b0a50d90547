"""Who records corrections, and how the corrections page reads times: adjudicators (and admins)
record them on the page and with the command, as the README says; freezing the corrected
release is an admin's; the form takes times as people type them (13.2, 0:13.200, #396), snaps
them to the source's frames, and a refused form comes back with what was typed."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.models import MicroStep
from review.audit.imports import decisions_load
from review.audit.models import Correction
from review.audit.services import corrected_release_freeze, correction_apply
from tests.conftest import _user
from tests.review.audit_world import build_world
from tests.review.test_audit_blinding import client_for

pytestmark = pytest.mark.django_db

ALL = ("C1", "C2", "C3", "C4", "C5", "C6", "C7")


@pytest.fixture
def reviewers(auditor, django_user_model):
    return [
        auditor,
        _user(django_user_model, "bea", "auditor"),
        _user(django_user_model, "cyd", "auditor"),
    ]


@pytest.fixture
def world(tmp_path, admin_user, annotator, reviewers, audit_source):
    world = build_world(
        tmp_path=tmp_path,
        admin=admin_user,
        annotator=annotator,
        reviewers=reviewers,
        source=audit_source,
    )
    # The first step: C3 invalid by a majority of two.
    lines = [
        {
            "kind": "decision",
            "reviewer": r.username,
            "step": str(world.steps[0].uid),
            "criterion": cid,
            "label": "invalid" if cid == "C3" and n < 2 else "valid",
        }
        for n, r in enumerate(reviewers)
        for cid in ALL
    ]
    decisions_load(campaign=world.campaign, lines=lines)
    world.item = world.campaign.items.get(sample__sample_id=world.steps[0].uid)
    return world


def _url(world):
    return reverse("audit:corrections", args=[world.campaign.pk])


def test_adjudicators_reach_the_corrections_others_do_not(
    world, adjudicator, reviewers, annotator, rater, admin_user
):
    pages = [reverse("audit:corrections-list"), _url(world), _url(world) + f"?item={world.item.pk}"]
    for user in (adjudicator, admin_user):
        client = client_for(user)
        for url in pages:
            assert client.get(url).status_code == 200, (user.username, url)
    for user in (reviewers[0], annotator, rater):
        client = client_for(user)
        for url in pages:
            assert client.get(url).status_code == 404, (user.username, url)
    home = client_for(adjudicator).get("/").content.decode()
    assert reverse("audit:corrections-list") in home
    # The freeze form is an admin's only.
    assert (
        "Freeze the corrected release"
        not in client_for(adjudicator).get(_url(world)).content.decode()
    )
    assert (
        "Freeze the corrected release" in client_for(admin_user).get(_url(world)).content.decode()
    )


def test_an_adjudicator_moves_a_cutoff_typed_as_a_timecode_snapped_to_a_frame(world, adjudicator):
    step = world.steps[0]
    times = step.video.frame_times_us()
    client = client_for(adjudicator)
    page = client.get(_url(world) + f"?item={world.item.pk}").content.decode()
    assert "corrections-config" in page and "The step now" in page
    response = client.post(
        _url(world),
        {
            "item": world.item.pk,
            "kind": "move_cutoff",
            "cutoff": "0:01.71",
            "note": "the cup is set down",
        },
    )
    assert response.status_code == 302, response.content.decode()
    step.refresh_from_db()
    assert step.cutoff_us == int(times[51])  # 1.71 s at 30 fps: frame 51 (1.700 s) is nearest
    correction = Correction.objects.get()
    assert correction.author == adjudicator and correction.kind == "move_cutoff"
    # A frame number means the same boundary as the workspace's "#n".
    client.post(_url(world), {"item": world.item.pk, "kind": "move_cutoff", "cutoff": "#50"})
    step.refresh_from_db()
    assert step.cutoff_us == int(times[50])


def test_a_refused_correction_keeps_what_was_typed_and_names_the_field(world, adjudicator):
    step = world.steps[0]
    before = (step.cutoff_us, step.version)
    client = client_for(adjudicator)
    for typed, words in (
        ("13.2", "New cutoff: '13.2' is past the end of the video"),
        ("soon", "New cutoff: 'soon' is not a time (13.2 or 0:13.200) or a frame"),
        ("#9999", "New cutoff: Frame #9999 is past the end of the video"),
    ):
        response = client.post(
            _url(world),
            {
                "item": world.item.pk,
                "kind": "move_cutoff",
                "cutoff": typed,
                "note": "my reason stays",
            },
        )
        text = response.content.decode()
        assert response.status_code == 200
        assert words in text.replace("&#x27;", "'"), text[:3000]
        assert f'value="{typed}"' in text and 'value="my reason stays"' in text
        assert "Whole microseconds" not in text
    step.refresh_from_db()
    assert (step.cutoff_us, step.version) == before
    assert not Correction.objects.exists()


def test_a_split_typed_as_a_frame_number(world, adjudicator):
    step = world.steps[0]
    times = step.video.frame_times_us()
    client_for(adjudicator).post(
        _url(world), {"item": world.item.pk, "kind": "split_step", "at": "#40"}
    )
    step.refresh_from_db()
    assert step.end_us == int(times[40])
    assert MicroStep.objects.filter(start_us=int(times[40]), video=step.video).exists()


def test_only_adjudicators_and_admins_record_corrections_and_only_admins_freeze(
    world, adjudicator, reviewers, annotator, admin_user
):
    from django.core.exceptions import ValidationError

    for user in (reviewers[0], annotator):
        with pytest.raises(ValidationError, match="adjudicators and admins"):
            correction_apply(
                campaign=world.campaign,
                item=world.item,
                author=user,
                kind="revise_local",
                values={"text": "Lift the cup"},
            )
        with pytest.raises(CommandError, match="adjudicators and admins"):
            call_command(
                "audit_correct",
                world.campaign.name,
                "--step",
                str(world.steps[0].uid),
                "--type",
                "revise_local",
                "--text",
                "Lift it",
                "--user",
                user.username,
            )
    correction_apply(
        campaign=world.campaign,
        item=world.item,
        author=adjudicator,
        kind="revise_local",
        values={"text": "Lift the cup"},
    )
    with pytest.raises(ValidationError, match="Only an admin freezes"):
        corrected_release_freeze(campaign=world.campaign, name="v2", author=adjudicator)
    response = client_for(adjudicator).post(_url(world), {"action": "freeze", "name": "v2"})
    assert "Only an admin freezes a release." in response.content.decode()
    release = corrected_release_freeze(campaign=world.campaign, name="v2", author=admin_user)
    assert release.parent_id == world.release.pk


def test_the_command_reads_times_as_the_page_does(world, adjudicator):
    step = world.steps[0]
    times = step.video.frame_times_us()
    call_command(
        "audit_correct",
        world.campaign.name,
        "--step",
        str(step.uid),
        "--type",
        "move_cutoff",
        "--cutoff",
        "#49",
        "--user",
        adjudicator.username,
    )
    step.refresh_from_db()
    assert step.cutoff_us == int(times[49])
    with pytest.raises(CommandError, match="--cutoff: 'later' is not a time"):
        call_command(
            "audit_correct",
            world.campaign.name,
            "--step",
            str(step.uid),
            "--type",
            "move_cutoff",
            "--cutoff",
            "later",
            "--user",
            adjudicator.username,
        )

"""The admin speaks the product's language: its name, correct English plurals, times as
timecodes with frame numbers beside the raw microseconds, rational frame rates, batch items that
name their step, no Save button on what cannot change, readable forms with each error once."""

import re

import pytest
from django.apps import apps
from django.urls import reverse

from annotation.models import VideoAssignment
from annotation.rendering import step_subject
from annotation.services import step_create
from media.models import RenderBatch, RenderBatchItem, RenderedMedia
from studio.canonical import MAX_SAFE_INTEGER

S = 1_000_000
PROJECT_APPS = ("studio", "media", "annotation", "review", "scoring")
PLURALS = {
    "media.RenderBatch": "render batches",
    "media.RenderedMedia": "rendered media",
    "media.SourceVideo": "source videos",
    "annotation.MicroStep": "micro-steps",
    "annotation.StepRevision": "step revisions",
    "review.SampleDesign": "sample designs",
}


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    return client


def test_the_admin_is_called_intent_studio(admin_client):
    html = admin_client.get("/admin/").content.decode()
    assert "<title>Administration | Intent Studio admin</title>" in html
    assert "Intent Studio administration" in html and "Django" not in html


def test_model_names_are_correct_english():
    models = {m._meta.label: m for m in apps.get_models() if m._meta.app_label in PROJECT_APPS}
    assert {label: str(models[label]._meta.verbose_name_plural) for label in PLURALS} == PLURALS
    for label, model in models.items():
        plural = str(model._meta.verbose_name_plural)
        assert not re.search(r"(chs|shs|ss|xs|medias|[^aeiou]ys)$", plural), (label, plural)


@pytest.fixture
def step(make_video, annotator):
    video = make_video(title="kitchen-tea.mp4", fps=30000, seconds=2)
    video.fps_num, video.fps_den = 30000, 1001
    video.set_frame_times_us([round(i * 1001 * S / 30000) for i in range(60)])
    video.duration_us = round(60 * 1001 * S / 30000)
    video.save()
    VideoAssignment.objects.create(video=video, annotator=annotator)
    times = video.frame_times_us().tolist()
    return step_create(
        video=video,
        author=annotator,
        start_us=times[6],
        cutoff_us=times[30],
        outcome_us=times[33],
        end_us=times[45],
    )


def test_step_times_are_timecodes_with_the_workspaces_frame_numbers(admin_client, step):
    listing = admin_client.get(reverse("admin:annotation_microstep_changelist")).content.decode()
    assert "0:00.200 · frame #6" in listing
    page = admin_client.get(reverse("admin:annotation_microstep_change", args=[step.pk]))
    html = page.content.decode()
    # The cutoff is the first frame withheld: the workspace says "last shown #29" (frame 30
    # is not shown); the end is the first frame after the step, whose last frame is #44.
    assert "0:01.001 · last shown #29" in html
    assert "0:01.501 · last #44" in html
    assert " µs" not in html


def test_frame_rates_show_as_a_rational_and_a_decimal(admin_client, step):
    listing = admin_client.get(reverse("admin:media_sourcevideo_changelist")).content.decode()
    assert "30000/1001 = 29.97" in listing
    assert "0:02.002 · 60 frames" in listing
    page = admin_client.get(reverse("admin:media_sourcevideo_change", args=[step.video.pk]))
    assert "30000/1001 = 29.97" in page.content.decode()


def test_render_batch_items_name_their_step(admin_client, step):
    batch = RenderBatch.objects.create(label="official")
    RenderBatchItem.objects.create(
        batch=batch, subject=step_subject(step), condition="official", profile="clip", error="x"
    )
    RenderBatchItem.objects.create(
        batch=batch, subject="clip 7", condition="official", profile="clip", error="x"
    )
    for url in (
        reverse("admin:media_renderbatch_change", args=[batch.pk]),
        reverse("admin:media_renderbatchitem_changelist"),
    ):
        html = admin_client.get(url).content.decode()
        assert f"Step 1 of kitchen-tea.mp4<br><small>{step_subject(step)}</small>" in html, url
        assert "clip 7" in html
    progress = admin_client.get(reverse("admin:media_renderbatch_progress", args=[batch.pk]))
    names = sorted(f["name"] for f in progress.json()["failures"])
    assert names == ["Step 1 of kitchen-tea.mp4", "clip 7"]


def test_what_cannot_change_offers_no_save_button(admin_client, step, admin_user):
    from annotation.releases import release_freeze
    from review.manifests.services import manifest_freeze
    from review.models import Manifest, SampleDesign

    release = release_freeze(name="demo_v1", author=admin_user, allow_incomplete=True)
    design = SampleDesign.objects.create(
        name="audit_v1", method="stratified", release=release, seed=1, params={"target_n": 1}
    )
    manifest = manifest_freeze(design=design, author=admin_user)
    batch = RenderBatch.objects.create(label="official")
    medium = RenderedMedia.objects.create(
        key="a" * 64, video=step.video, kind="clip", profile="clip", spec={}
    )
    pages = {
        "render batch": ("media_renderbatch", batch.pk),
        "rendered medium": ("media_renderedmedia", medium.pk),
        "release": ("annotation_release", release.pk),
        "manifest": ("review_manifest", manifest.pk),
        "micro-step": ("annotation_microstep", step.pk),
    }
    for what, (name, pk) in pages.items():
        response = admin_client.get(reverse(f"admin:{name}_change", args=[pk]))
        assert response.status_code == 200, what
        assert 'name="_save"' not in response.content.decode(), what
    assert Manifest.objects.count() == 1
    # What people do edit keeps its Save button.
    editable = admin_client.get(reverse("admin:media_sourcevideo_change", args=[step.video.pk]))
    assert 'name="_save"' in editable.content.decode()


def test_the_sample_design_form_has_a_seed_and_says_its_range(admin_client):
    html = admin_client.get(reverse("admin:review_sampledesign_add")).content.decode()
    seed = re.search(r'<input type="number" name="seed" value="(\d+)"[^>]*>', html)
    assert seed and 0 <= int(seed[1]) <= MAX_SAFE_INTEGER
    assert 'max="9007199254740991"' in seed[0] and 'min="0"' in seed[0]
    assert "from 0 to 9,007,199,254,740,991" in html and "2**53" not in html


def test_a_form_error_appears_once(admin_client, step):
    response = admin_client.post(reverse("admin:annotation_release_freeze"), {"name": "Bad Name"})
    html = response.content.decode()
    errors = re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', html, re.S)
    assert len(errors) == 1 and html.count(errors[0]) == 1, errors
    response = admin_client.post(
        reverse("admin:review_sampledesign_add"),
        {"name": "x_v1", "seed": str(MAX_SAFE_INTEGER + 1)},
    )
    html = response.content.decode()
    message = "Ensure this value is less than or equal to 9007199254740991."
    assert html.count(message) == 1

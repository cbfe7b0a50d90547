"""Admin pages: freeze a release, create a design, preview it, freeze it, download it."""

import io
import zipfile

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import Release
from review.models import Manifest, SampleDesign
from tests.conftest import PASSWORD


@pytest.fixture
def admin_client_(admin_user):
    client = Client()
    assert client.login(username=admin_user.username, password=PASSWORD)
    return client


def test_admin_freezes_a_release_from_the_admin_page(db, admin_user, admin_client_):
    from tests.review.factories import build_dataset

    build_dataset(author=admin_user)
    changelist = admin_client_.get(reverse("admin:annotation_release_changelist"))
    assert b"Freeze a release" in changelist.content
    url = reverse("admin:annotation_release_freeze")
    assert admin_client_.get(url).status_code == 200
    response = admin_client_.post(url, {"name": "Bad Name"})
    assert response.status_code == 200 and Release.objects.count() == 0
    response = admin_client_.post(url, {"name": "egointent_v1", "note": "first"}, follow=True)
    release = Release.objects.get(name="egointent_v1")
    assert release.manifest_sha256 in response.content.decode()
    page = admin_client_.get(reverse("admin:annotation_release_changelist")).content.decode()
    assert release.manifest_sha256[:16] in page and release.sample_list_sha256[:16] in page


def test_a_correction_from_the_admin_page_names_its_parent(release, admin_client_):
    from annotation.models import MicroStep
    from annotation.services import step_update

    url = reverse("admin:annotation_release_freeze")
    response = admin_client_.post(url, {"name": "egointent_v1.1", "parent": release.pk})
    assert b"Nothing changed since release egointent_v1" in response.content
    step = MicroStep.objects.filter(status="active").order_by("pk").first()
    step_update(step=step, author=release.frozen_by, version=step.version, action="correct",
                values={"local_intent": "tighten the lid"}, reason="audit")  # fmt: skip
    admin_client_.post(url, {"name": "egointent_v1.1", "parent": release.pk})
    child = Release.objects.get(name="egointent_v1.1")
    assert child.parent == release
    assert child.manifest["parent"]["manifest_sha256"] == release.manifest_sha256


def test_design_preview_and_freeze_pages(release, admin_client_):
    response = admin_client_.post(
        reverse("admin:review_sampledesign_add"),
        {
            "name": "human12_v1",
            "kind": "human_baseline",
            "method": "quota",
            "release": release.pk,
            "seed": 20260713,
            "params": '{"scene_quota": 4, "bin_targets": [3, 3, 3, 3]}',
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    design = SampleDesign.objects.get(name="human12_v1")
    assert design.params["cover_videos"] is True
    page = admin_client_.get(reverse("admin:review_sampledesign_preview", args=[design.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert 'id="scene-bin"' in html and "indoor/workshop" in html and "&lt;1 s" in html
    assert "12</strong> samples (target 12)" in html
    response = admin_client_.post(
        reverse("admin:review_sampledesign_freeze", args=[design.pk]), {"name": "human12_v1"}
    )
    manifest = Manifest.objects.get(name="human12_v1")
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:review_manifest_change", args=[manifest.pk])
    listing = admin_client_.get(reverse("admin:review_manifest_changelist")).content.decode()
    assert manifest.manifest_sha256[:16] in listing
    download = admin_client_.get(reverse("admin:review_manifest_download", args=[manifest.pk]))
    data = b"".join(download.streaming_content)
    assert zipfile.ZipFile(io.BytesIO(data)).read("manifest.json").decode() == (
        manifest.manifest_text
    )


def test_admin_form_refuses_bad_params_and_preview_names_infeasible_constraint(
    release, admin_client_
):
    response = admin_client_.post(
        reverse("admin:review_sampledesign_add"),
        {
            "name": "x",
            "kind": "audit",
            "method": "stratified",
            "release": release.pk,
            "seed": 1,
            "params": '{"target_n": 0}',
        },
    )
    assert response.status_code == 200 and not SampleDesign.objects.exists()
    design = SampleDesign.objects.create(
        name="few", kind="audit", method="quota", release=release, seed=1, params={"scene_quota": 1}
    )
    html = admin_client_.get(
        reverse("admin:review_sampledesign_preview", args=[design.pk])
    ).content.decode()
    assert "has 2 source videos but a quota of 1" in html
    response = admin_client_.post(reverse("admin:review_sampledesign_freeze", args=[design.pk]))
    assert response.status_code == 302 and not Manifest.objects.exists()


def test_staff_without_the_admin_role_cannot_freeze_or_export(release, annotator):
    annotator.is_staff = True
    annotator.save()
    client = Client()
    client.force_login(annotator)
    design = SampleDesign.objects.create(
        name="audit",
        kind="audit",
        method="stratified",
        release=release,
        seed=1,
        params={"target_n": 12},
    )
    for url, method in (
        (reverse("admin:annotation_release_freeze"), "post"),
        (reverse("admin:annotation_release_download", args=[release.pk]), "get"),
        (reverse("admin:review_sampledesign_preview", args=[design.pk]), "get"),
        (reverse("admin:review_sampledesign_freeze", args=[design.pk]), "post"),
    ):
        response = getattr(client, method)(url, {"name": "sneaky"})
        assert response.status_code == 403, url
    assert Release.objects.count() == 1 and not Manifest.objects.exists()

"""The review API: admins create, preview, freeze and download; nobody else reaches anything."""

import zipfile

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Release
from annotation.releases import bundle_verify
from review.models import Manifest, SampleDesign

QUOTA = {"scene_quota": 4, "bin_targets": [3, 3, 3, 3]}


@pytest.fixture
def as_admin(admin_user):
    client = APIClient()
    client.force_authenticate(admin_user)
    return client


def _client(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_admin_freezes_a_release_designs_previews_freezes_and_downloads(
    db, admin_user, as_admin, tmp_path
):
    from tests.review.factories import build_dataset

    build_dataset(author=admin_user)
    response = as_admin.post(
        reverse("review:release-list"), {"name": "egointent_v1"}, format="json"
    )
    assert response.status_code == 201, response.content
    release = response.json()
    assert release["sample_count"] == 43 and len(release["manifest_sha256"]) == 64

    response = as_admin.post(
        reverse("review:design-list"),
        {
            "name": "human12_v1",
            "kind": "human_baseline",
            "method": "quota",
            "release": release["id"],
            "seed": 20260713,
            "params": QUOTA,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    design = response.json()
    assert design["params"]["cover_videos"] is True  # defaults filled in

    preview = as_admin.get(reverse("review:design-preview", args=[design["id"]])).json()
    assert preview["achieved_n"] == 12
    assert [b["achieved"] for b in preview["bin_totals"]] == [3, 3, 3, 3]

    response = as_admin.post(
        reverse("review:design-freeze", args=[design["id"]]), {}, format="json"
    )
    assert response.status_code == 201, response.content
    manifest = response.json()
    assert manifest["name"] == "human12_v1" and manifest["sample_count"] == 12
    assert manifest["manifest"]["release"]["manifest_sha256"] == release["manifest_sha256"]

    listing = as_admin.get(reverse("review:manifest-list")).json()
    assert [(m["name"], m["sample_list_sha256"], m["manifest_sha256"]) for m in listing] == [
        ("human12_v1", manifest["sample_list_sha256"], manifest["manifest_sha256"])
    ]
    for url, sha in (
        (manifest["download_url"], manifest["manifest_sha256"]),
        (release["download_url"], release["manifest_sha256"]),
    ):
        response = as_admin.get(url)
        assert response.status_code == 200
        assert response["Content-Type"] == "application/zip"
        path = tmp_path / f"{sha}.zip"
        path.write_bytes(b"".join(response.streaming_content))
        report = bundle_verify(path)
        assert report.ok and report.manifest_sha256 == sha
        assert "SHA256SUMS" in zipfile.ZipFile(path).namelist()


def test_a_correction_through_the_api_names_its_parent(release, as_admin):
    response = as_admin.post(
        reverse("review:release-list"),
        {"name": "egointent_v1.1", "parent": release.pk},
        format="json",
    )
    assert response.status_code == 400
    assert "Nothing changed since release egointent_v1" in str(response.json())
    assert Release.objects.count() == 1


def test_an_infeasible_design_is_a_400_with_its_message_and_freezes_nothing(release, as_admin):
    response = as_admin.post(
        reverse("review:design-list"),
        {
            "name": "too_few",
            "method": "quota",
            "release": release.pk,
            "seed": 1,
            "params": {"scene_quota": 1},
        },
        format="json",
    )
    design = response.json()
    message = "Scene indoor/kitchen has 2 source videos but a quota of 1"
    response = as_admin.get(reverse("review:design-preview", args=[design["id"]]))
    assert response.status_code == 400 and message in str(response.json())
    response = as_admin.post(
        reverse("review:design-freeze", args=[design["id"]]), {}, format="json"
    )
    assert response.status_code == 400 and message in str(response.json())
    assert not Manifest.objects.exists()


@pytest.mark.parametrize(
    "payload",
    [
        {"method": "quota", "seed": 1, "params": {"scene_quota": 2, "bogus": 1}},
        {"method": "stratified", "seed": 1, "params": {"target_n": 0}},
        {"method": "stratified", "seed": -1, "params": {"target_n": 3}},
        {"method": "nonsense", "seed": 1, "params": {}},
        {"method": "milp", "seed": 1, "params": {}},  # made from prediction runs, not here
        {"method": "stratified", "seed": 1, "params": [1, 2]},
    ],
    ids=[
        "unknown-param",
        "zero-target",
        "negative-seed",
        "unknown-method",
        "milp-method",
        "params-not-object",
    ],
)
def test_bad_design_input_is_a_400_and_writes_nothing(release, as_admin, payload):
    response = as_admin.post(
        reverse("review:design-list"),
        {"name": "bad", "release": release.pk, **payload},
        format="json",
    )
    assert response.status_code == 400, response.content
    assert not SampleDesign.objects.exists()


def test_a_bad_release_name_is_a_400(release, as_admin):
    response = as_admin.post(reverse("review:release-list"), {"name": "Not OK"}, format="json")
    assert response.status_code == 400
    assert Release.objects.count() == 1


@pytest.mark.parametrize("who", ["annotator", "auditor", "rater", "adjudicator"])
def test_other_roles_get_403_on_collections_and_404_on_objects(request, release, admin_user, who):
    from review.manifests.services import design_create, manifest_freeze

    design = design_create(
        author=admin_user,
        name="audit12",
        method="stratified",
        release=release,
        seed=1,
        params={"target_n": 12},
    )
    manifest = manifest_freeze(design=design, author=admin_user)
    client = _client(request.getfixturevalue(who))
    for name in ("review:release-list", "review:design-list", "review:manifest-list"):
        assert client.get(reverse(name)).status_code == 403
    assert (
        client.post(reverse("review:release-list"), {"name": "sneaky"}, format="json").status_code
        == 403
    )
    assert (
        client.post(
            reverse("review:design-list"),
            {
                "name": "sneaky",
                "method": "stratified",
                "release": release.pk,
                "seed": 1,
                "params": {"target_n": 3},
            },
            format="json",
        ).status_code
        == 403
    )
    for name, pk in (
        ("review:release-detail", release.pk),
        ("review:release-download", release.pk),
        ("review:design-detail", design.pk),
        ("review:design-preview", design.pk),
        ("review:manifest-detail", manifest.pk),
        ("review:manifest-download", manifest.pk),
    ):
        assert client.get(reverse(name, args=[pk])).status_code == 404, name
    assert (
        client.post(
            reverse("review:design-freeze", args=[design.pk]), {"name": "sneaky"}, format="json"
        ).status_code
        == 404
    )
    assert (
        client.patch(
            reverse("review:design-detail", args=[design.pk]), {"seed": 2}, format="json"
        ).status_code
        == 404
    )
    assert Release.objects.count() == 1 and Manifest.objects.count() == 1
    assert SampleDesign.objects.get(pk=design.pk).seed == 1


def test_anonymous_users_reach_nothing(release):
    client = APIClient()
    assert client.get(reverse("review:manifest-list")).status_code == 403
    assert client.get(reverse("review:release-download", args=[release.pk])).status_code == 403


def test_the_endpoints_appear_in_the_openapi_schema(db, admin_user):
    from django.test import Client

    client = Client()
    client.force_login(admin_user)
    schema = client.get(reverse("api-schema")).content.decode()
    for path in (
        "/api/review/releases/",
        "/api/review/designs/{design_id}/preview/",
        "/api/review/designs/{design_id}/freeze/",
        "/api/review/manifests/",
        "/api/review/manifests/{manifest_id}/download/",
    ):
        assert path in schema


def test_design_patch_validates_and_saves(release, as_admin):
    design = as_admin.post(
        reverse("review:design-list"),
        {
            "name": "audit",
            "method": "stratified",
            "release": release.pk,
            "seed": 1,
            "params": {"target_n": 12},
        },
        format="json",
    ).json()
    url = reverse("review:design-detail", args=[design["id"]])
    assert as_admin.patch(url, {"params": {"target_n": 0}}, format="json").status_code == 400
    response = as_admin.patch(url, {"seed": 7, "params": {"target_n": 10}}, format="json")
    assert response.status_code == 200
    assert response.json()["seed"] == 7 and response.json()["params"]["target_n"] == 10

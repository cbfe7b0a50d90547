"""The admin's lists of QA rows open (read-only), and a QA-review manifest shows and downloads
like any manifest."""

import io
import zipfile

import pytest
from django.test import Client
from django.urls import reverse

from review.qa.imports import qa_import
from review.qa.sampling import qa_manifest_freeze
from tests.review.qa.helpers import group, jsonl

pytestmark = pytest.mark.django_db


def test_qa_admin_pages(make_video, admin_user):
    video = make_video(seconds=20)
    group_set, _ = qa_import(
        text=jsonl(sorted([group(1, video.sha256), group(2, video.sha256, structure="chain",
                                                          turns=2)], key=lambda r: r["uid"])),
        name="qa_v1", author=admin_user,
    )  # fmt: skip
    manifest = qa_manifest_freeze(
        group_set=group_set, name="qa_m", seed=1, params={"n_groups": 2}, author=admin_user
    )
    client = Client()
    client.force_login(admin_user)
    for model in ("qagroupset", "qagroup", "qaturn", "qaevidence", "qaedit", "qamanifestsource"):
        assert client.get(reverse(f"admin:review_{model}_changelist")).status_code == 200, model
    assert client.get(reverse("admin:review_manifest_changelist")).status_code == 200
    page = client.get(reverse("admin:review_manifest_change", args=[manifest.pk]))
    assert page.status_code == 200
    response = client.get(reverse("admin:review_manifest_download", args=[manifest.pk]))
    data = b"".join(response.streaming_content)
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert "groups.jsonl" in names and "manifest.json" in names

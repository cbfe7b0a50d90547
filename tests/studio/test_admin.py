"""Every model of the project has an admin page that an admin can open."""

import pytest
from django.apps import apps
from django.contrib import admin
from django.urls import reverse

PROJECT_APPS = ("studio", "media", "annotation", "review", "scoring")


def test_every_model_is_registered_in_the_admin():
    missing = [
        m._meta.label
        for m in apps.get_models()
        if m._meta.app_label in PROJECT_APPS and m not in admin.site._registry
    ]
    assert missing == []


@pytest.mark.parametrize(
    "model",
    [m for m in apps.get_models() if m._meta.app_label in PROJECT_APPS],
    ids=lambda m: m._meta.label,
)
def test_admin_changelist_opens(client, admin_user, model):
    client.force_login(admin_user)
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    assert client.get(url).status_code == 200

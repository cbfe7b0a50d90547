"""A published folder of a real rendered release, and the same set as a manifest."""

import io

import pytest
from django.core.management import call_command


@pytest.fixture
def publish(tmp_path):
    """publish(NAME, conditions=..., zip=False) -> the path it wrote."""
    counter = {"n": 0}

    def run(name, *, conditions="official,ordered", as_zip=False, out=None):
        counter["n"] += 1
        out = out or tmp_path / (f"published-{counter['n']}" + (".zip" if as_zip else ""))
        args = [name, str(out), "--conditions", conditions] + (["--zip"] if as_zip else [])
        call_command("publish_benchmark", *args, stdout=io.StringIO())
        return out

    return run


@pytest.fixture
def published_release(media_release, packages):
    packages("official-prediction")
    return media_release


@pytest.fixture
def small_manifest(published_release, admin_user):
    """One of the release's two steps, frozen as manifest ``media-sub`` (subset-step/1)."""
    from review.manifests.services import manifest_freeze_selection

    first = str(published_release.steps.order_by("sample_id").first().sample_id)
    return manifest_freeze_selection(
        name="media-sub",
        kind="diagnostic",
        method="stratified",
        seed=7,
        release=published_release,
        params={"target_n": 1},
        sample_ids=[first],
        bins={first: 2},
        author=admin_user,
    )


@pytest.fixture
def empty_point(db):
    """A savepoint taken before any other fixture writes: rolling back to it leaves this test's
    database as empty as a new instance (files written meanwhile stay on disk)."""
    from django.db import transaction

    return transaction.savepoint()

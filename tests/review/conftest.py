import pytest

from annotation.releases import release_freeze
from tests.review.factories import build_dataset


@pytest.fixture
def release(db, admin_user):
    """The factories' data set frozen as egointent_v1."""
    build_dataset(author=admin_user)
    return release_freeze(name="egointent_v1", author=admin_user)


@pytest.fixture(scope="session")
def audit_source(tmp_path_factory):
    """The audit world's real video file, synthesised once per session."""
    from tests.review.audit_world import synth_source

    return synth_source(tmp_path_factory.mktemp("audit-source"))

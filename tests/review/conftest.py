import pytest

from annotation.releases import release_freeze
from tests.review.factories import build_dataset


@pytest.fixture
def release(db, admin_user):
    """The factories' data set frozen as egointent_v1."""
    build_dataset(author=admin_user)
    return release_freeze(name="egointent_v1", author=admin_user)

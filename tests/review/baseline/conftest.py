import pytest

from tests.conftest import _user
from tests.review.baseline.world import build_world


@pytest.fixture
def raters(rater, django_user_model):
    return [
        rater,
        _user(django_user_model, "rhea", "rater"),
        _user(django_user_model, "ravi", "rater"),
    ]


@pytest.fixture
def world(tmp_path, admin_user, annotator, raters, audit_source):
    return build_world(
        tmp_path=tmp_path, admin=admin_user, annotator=annotator, raters=raters, source=audit_source
    )

"""The OpenAPI schema tells the truth: schemathesis generates requests for every operation from
the schema itself (valid ones and ones that break it), sends them to the live test server as an
admin and as an annotator, and checks every answer against the schema.

Pass rule: 0 server errors and 0 schema violations (status code, content type, body, headers).
Bounded: EXAMPLES per operation and generation mode, no shrinking, a fixed seed; and a time cap
after which no further requests are generated (the report says how many were sent).
"""

from __future__ import annotations

import contextlib
import time

import pytest
import requests
import schemathesis
from django.test import Client
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from annotation.models import VideoAssignment
from annotation.services import step_create

# About 25 requests per operation and role: valid ones, and ones that break the schema (wrong
# types, missing fields, ids that are not numbers), which must get documented errors.
EXAMPLES = {GenerationMode.POSITIVE: 15, GenerationMode.NEGATIVE: 10}
TIME_CAP_SECONDS = 75  # per role: keeps the whole file under 3 minutes on a loaded machine
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]
S = 1_000_000


def _seed(annotator, make_video) -> None:
    """Objects with small ids, which the generated ids hit: a video of the annotator's with
    steps, and one of nobody's."""
    video = make_video(title="kitchen-01.mp4")
    VideoAssignment.objects.create(video=video, annotator=annotator)
    make_video(title="garden-02.mp4")
    for n in range(3):
        start = n * 4 * S
        step_create(
            video=video,
            author=annotator,
            start_us=start,
            cutoff_us=start + 2 * S,
            outcome_us=start + 2 * S,
            end_us=start + 3 * S,
            local_intent=f"step {n}",
        )


def _session_for(user, base_url: str) -> requests.Session:
    django_client = Client()
    django_client.force_login(user)
    session = requests.Session()
    session.cookies.set("sessionid", django_client.cookies["sessionid"].value)
    session.get(f"{base_url}/login/", timeout=10)  # the csrftoken cookie, as every page sets it
    session.headers["X-CSRFToken"] = session.cookies["csrftoken"]
    return session


class _TimeUp(Exception):
    pass


def _fuzz(operation, mode, base_url, session, deadline, sent, failures) -> None:
    @settings(
        max_examples=EXAMPLES[mode],
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=mode))
    def send(case):
        if time.monotonic() > deadline:
            raise _TimeUp  # ends this operation's generation at once
        response = case.call(base_url=base_url, session=session, timeout=30)
        sent["requests"] += 1
        try:
            case.validate_response(response, checks=CHECKS)
        except (AssertionError, BaseExceptionGroup) as failure:  # report all, go on
            failures.append(
                f"{case.method} {response.request.path_url} ({mode.value}) -> "
                f"{response.status_code}: {str(failure)[:400]}"
            )

    with contextlib.suppress(_TimeUp):
        send()


@pytest.mark.django_db(transaction=True, reset_sequences=True)
@pytest.mark.parametrize("role", ["admin_user", "annotator"])
def test_every_answer_of_the_api_is_in_its_schema(request, role, live_server, make_video):
    annotator = request.getfixturevalue("annotator")
    user = request.getfixturevalue(role)
    _seed(annotator, make_video)
    base_url = live_server.url
    session = _session_for(user, base_url)
    document = session.get(f"{base_url}/api/schema/?format=json", timeout=30).json()
    schema = schemathesis.openapi.from_dict(document)

    failures: list[str] = []
    sent = {"requests": 0, "operations": 0}
    deadline = time.monotonic() + TIME_CAP_SECONDS

    for result in schema.get_all_operations():
        sent["operations"] += 1
        for mode in EXAMPLES:
            _fuzz(result.ok(), mode, base_url, session, deadline, sent, failures)

    spent = time.monotonic() - (deadline - TIME_CAP_SECONDS)
    print(
        f"schemathesis as {role}: {sent['operations']} operations, {sent['requests']} requests, "
        f"{spent:.0f} s"
    )
    assert sent["operations"] >= 20
    assert sent["requests"] >= sent["operations"] * 2  # the cap did not cut the run to nothing
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:40])

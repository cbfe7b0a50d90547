"""The stand-in provider answers as OpenAI-compatible servers do where a client depends on it:
the official client streams from it, an unknown model is a 404 ``model_not_found``, and a
provider's error code is shown once in an outcome's detail."""

import json

import httpx2
import openai
import pytest

from scoring.providers.outcomes import classify_status
from scoring.runs import run_drive, run_predict

MESSAGES = [{"role": "user", "content": json.dumps({"evidence": {"kind": "none"}})}]


@pytest.fixture
def client(stand_in):
    return openai.OpenAI(base_url=stand_in.base_url, api_key="stand-in-key", max_retries=0)


def test_the_official_client_streams_the_same_reply_in_chunks(client, stand_in):
    whole = client.chat.completions.create(model="stand-in-vision", messages=MESSAGES)
    chunks = list(
        client.chat.completions.create(
            model="stand-in-vision",
            messages=MESSAGES,
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    assert len(chunks) >= 4  # the role, pieces of the content, the finish reason, the usage
    assert {c.object for c in chunks} == {"chat.completion.chunk"}
    assert len({c.id for c in chunks}) == 1 and chunks[0].model == whole.model
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == whole.choices[0].message.content
    assert json.loads(text)["local_intent"].startswith("stand-in guess")
    assert chunks[0].choices[0].delta.role == "assistant"
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].choices == []
    assert chunks[-1].usage.completion_tokens == whole.usage.completion_tokens
    assert stand_in.stats()["requests"] == 2


def test_a_stream_without_usage_ends_with_the_finish_reason(client, stand_in):
    stand_in.rules({"times": 1, "action": {"finish_reason": "content_filter"}})
    chunks = list(
        client.chat.completions.create(model="stand-in-vision", messages=MESSAGES, stream=True)
    )
    assert chunks[-1].choices[0].finish_reason == "content_filter"
    assert all(c.usage is None for c in chunks)


def test_errors_are_never_streamed(client, stand_in):
    stand_in.rules({"times": 1, "action": {"status": 400, "code": "content_filter"}})
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="stand-in-vision", messages=MESSAGES, stream=True)
    assert refused.value.code == "content_filter"
    raw = httpx2.post(
        f"{stand_in.base_url}/chat/completions",
        json={"model": "stand-in-vision", "messages": MESSAGES, "stream": "yes"},
        timeout=10,
    )
    assert raw.status_code == 400 and raw.json()["error"]["param"] == "stream"


def test_an_unknown_model_is_a_404_model_not_found(client, stand_in):
    for stream in (False, True):
        with pytest.raises(openai.NotFoundError) as missing:
            client.chat.completions.create(model="gpt-unknown", messages=MESSAGES, stream=stream)
        assert missing.value.code == "model_not_found"
        assert "gpt-unknown" in missing.value.message
    assert [m.id for m in client.models.list()] == ["stand-in-vision", "stand-in-judge"]


@pytest.mark.django_db
def test_a_run_on_an_unknown_model_ends_in_api_error_at_once(
    frozen_release, make_endpoint, packages, stand_in
):
    run = run_predict(
        name="p-unknown",
        endpoint=make_endpoint(model="gpt-unknown"),
        package=packages("frames-prediction"),
        condition="prompt_only",
        release=frozen_release,
    )
    run_drive(run_id=run.pk)
    item = run.items.first()
    assert item.outcome == "api_error" and item.attempts == 1
    assert item.detail.startswith("HTTP 404: The model 'gpt-unknown' does not exist")
    assert stand_in.stats()["requests"] == 3  # one per item, none retried


@pytest.mark.parametrize(
    ("error", "detail"),
    [
        (
            {"code": "400", "message": "Output blocked by the content filter"},
            "HTTP 400 content filter: Output blocked by the content filter",
        ),
        (
            {"code": 400, "type": "content_filter", "message": "Blocked"},
            "HTTP 400 content_filter: Blocked",
        ),
        ({"code": "content_filter", "message": "Blocked"}, "HTTP 400 content_filter: Blocked"),
    ],
)
def test_a_providers_error_code_is_shown_once(error, detail):
    verdict = classify_status(400, json.dumps({"error": error}))
    assert (verdict.kind, verdict.detail) == ("refusal", detail)


@pytest.mark.django_db
def test_a_refusal_coded_with_its_status_reads_once_in_the_item(
    frozen_release, make_endpoint, packages, stand_in
):
    stand_in.rules(
        {
            "times": -1,
            "action": {"status": 400, "code": "400", "message": "Blocked by the content filter"},
        }
    )
    run = run_predict(
        name="p-coded",
        endpoint=make_endpoint(),
        package=packages("frames-prediction"),
        condition="prompt_only",
        release=frozen_release,
    )
    run_drive(run_id=run.pk)
    item = run.items.first()
    assert item.outcome == "refusal"
    assert item.detail == "HTTP 400 content filter: Blocked by the content filter"


def test_rules_given_at_start_answer_from_the_first_request(tmp_path):
    """``--rules FILE`` (what make run passes when the demo wrote its scripted answers) puts the
    rules in place before any request; a file that is not rules is refused."""
    import subprocess
    import sys

    from tests.conftest import ROOT
    from tests.scoring.conftest import start_stand_in, stop_stand_in

    rules = tmp_path / "stand-in-rules.json"
    rules.write_text(json.dumps({"rules": [
        {"model": "stand-in-vision", "contains": "okapi-at-start", "modalities": [], "times": -1,
         "action": {"content": "scripted from the file"}},
    ]}))  # fmt: skip
    server = start_stand_in(args=["--rules", str(rules)])
    try:

        def ask(text):
            body = {"model": "stand-in-vision", "messages": [{"role": "user", "content": text}]}
            reply = httpx2.post(f"{server.base_url}/chat/completions", json=body, timeout=10)
            return reply.json()["choices"][0]["message"]["content"]

        assert ask("okapi-at-start, please") == "scripted from the file"
        assert ask("something else") != "scripted from the file"
    finally:
        stop_stand_in(server)
    rules.write_text(json.dumps({"rules": "not a list"}))
    done = subprocess.run(
        [sys.executable, "manage.py", "serve_stand_in_provider", "--port", "0", "--rules",
         str(rules)], cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode != 0 and "cannot read the rules" in done.stderr


def test_the_demo_seed_starts_a_scripted_stand_in_when_none_listens(settings):
    """``scoring.qa.demo.scripted_stand_in``: with nothing on the port, one in this process with
    the rules in place (matching on the modalities that arrived), gone when the block ends."""
    import socket

    from scoring.qa.demo import scripted_stand_in

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings.STAND_IN_PROVIDER_PORT = port
    rule = {"model": "stand-in-vision", "contains": "seeded-okapi", "modalities": [],
            "times": -1, "action": {"content": "from the seed's rules"}}  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    picture = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}

    def ask(content):
        body = {"model": "stand-in-vision", "messages": [{"role": "user", "content": content}]}
        return httpx2.post(url, json=body, timeout=10).json()["choices"][0]["message"]["content"]

    with scripted_stand_in([rule]) as ready:
        assert ready
        assert ask("seeded-okapi?") == "from the seed's rules"
        # The same text with a picture: another set of modalities, so not this rule.
        assert ask([{"type": "text", "text": "seeded-okapi?"}, picture]) != "from the seed's rules"
    with pytest.raises(httpx2.HTTPError):
        httpx2.get(f"http://127.0.0.1:{port}/_stand_in/stats", timeout=2)

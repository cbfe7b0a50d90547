"""Every draft and submit endpoint answers a malformed payload with 400 and a reason, and writes
nothing: the item pages of the five kinds (``/<kind>/i/<token>/draft|submit``) and the review
API (``/api/review/assignments/<token>/draft|submit/``). Each case of the finding is replayed as
it was reported (each answered 500 before): JSON nested 10,000 deep (RecursionError), a NUL in
a comment (PostgreSQL's DataError: on PostgreSQL), a lone surrogate (UnicodeEncodeError),
``{"local": "²"}`` or a 5,000-digit string on judge validation (ValueError), ``{"edits": 5}``
on QA (TypeError)."""

from __future__ import annotations

import copy
import json

import pytest
from django.core.exceptions import ValidationError
from django.test import Client

from review.campaigns.payloads import (
    MAX_DEPTH,
    check_payload,
    parse_json,
    text_problem,
    whole_number,
)
from tests.review.payload_world import build_open_assignments

pytestmark = pytest.mark.django_db

ENDPOINTS = ("page-draft", "page-submit", "api-draft", "api-submit")
KINDS = ("audit", "boundary", "human_baseline", "judge_validation", "qa_review")


@pytest.fixture
def opened(tmp_path, admin_user, annotator, make_video, audit_source):
    return build_open_assignments(
        tmp_path=tmp_path, admin=admin_user, annotator=annotator, make_video=make_video,
        source=audit_source,
    )  # fmt: skip


def _client(person) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(person)
    return client


def _send(client, url: str, body: bytes):
    method = client.put if url.endswith("draft/") else client.post
    return method(url, body, content_type="application/json")


def _body(open_, payload, part=None) -> bytes:
    part = open_.parts[0] if part is None else part
    return json.dumps({"part": part, "payload": payload}).encode()  # ensure_ascii: \u escapes


def assert_refused(open_, client, endpoint: str, body: bytes) -> dict:
    before = open_.snapshot()
    response = _send(client, open_.urls[endpoint], body)
    assert response.status_code == 400, (open_.kind, endpoint, response.content[:300])
    answer = response.json()
    assert answer and all(answer.values()), answer  # names what is wrong
    assert open_.snapshot() == before, (open_.kind, endpoint, "wrote something")
    return answer


def _text_fields(open_) -> list[dict]:
    """A valid payload of each kind with ``TEXT`` in a free-text field (a comment or a note)."""
    payload = copy.deepcopy(open_.payloads[open_.parts[0]])
    if open_.kind == "audit":
        payload["criteria"]["C1"]["comment"] = "TEXT"
    elif open_.kind == "boundary":
        next(iter(payload["windows"].values()))["comment"] = "TEXT"
    elif open_.kind == "human_baseline":
        payload["dimensions"]["local"]["answers"] = ["TEXT"]
    elif open_.kind == "judge_validation":
        payload["reason"] = "TEXT"
    else:
        payload["comment"] = "TEXT"
    return payload


def _with_text(open_, text: str) -> bytes:
    raw = json.dumps({"part": open_.parts[0], "payload": _text_fields(open_)})
    return raw.replace('"TEXT"', json.dumps(text)).encode()


def test_json_nested_ten_thousand_deep_is_refused_everywhere(opened):
    for open_ in opened.values():
        client = _client(open_.person)
        deep = "[" * 10_000 + "]" * 10_000
        body = f'{{"part": {json.dumps(open_.parts[0])}, "payload": {{"a": {deep}}}}}'.encode()
        for endpoint in ENDPOINTS:
            answer = assert_refused(open_, client, endpoint, body)
            assert "nest" in json.dumps(answer), answer


@pytest.mark.postgres
def test_a_nul_in_a_comment_is_refused_everywhere_on_postgresql(opened):
    for open_ in opened.values():
        client = _client(open_.person)
        for endpoint in ENDPOINTS:
            answer = assert_refused(open_, client, endpoint, _with_text(open_, "wet\x00floor"))
            assert "NUL" in json.dumps(answer), (open_.kind, endpoint, answer)


def test_a_lone_surrogate_is_refused_everywhere(opened):
    for open_ in opened.values():
        client = _client(open_.person)
        for endpoint in ENDPOINTS:
            answer = assert_refused(open_, client, endpoint, _with_text(open_, "\ud800"))
            assert "surrogate" in json.dumps(answer), (open_.kind, endpoint, answer)


def test_non_ascii_and_oversized_digits_are_not_scores(opened):
    open_ = opened["judge_validation"]
    client = _client(open_.person)
    for value in ("²", "٣", "5" * 5000, "1" * 21, 10**30):
        for endpoint in ENDPOINTS:
            payload = {**open_.payloads["first"], "local": value}
            answer = assert_refused(open_, client, endpoint, _body(open_, payload))
            assert "local" in json.dumps(answer) or "digits" in json.dumps(answer), answer
    # a number literal of 5,000 digits in the body itself
    body = b'{"part": "first", "payload": {"local": ' + b"7" * 5000 + b"}}"
    for endpoint in ENDPOINTS:
        assert_refused(open_, client, endpoint, body)


def test_edits_that_are_not_a_list_are_refused_on_qa(opened):
    open_ = opened["qa_review"]
    client = _client(open_.person)
    for endpoint in ENDPOINTS:
        payload = {**open_.payloads[""], "edits": 5}
        answer = assert_refused(open_, client, endpoint, _body(open_, payload))
        assert "edits" in json.dumps(answer)


@pytest.mark.parametrize("kind", KINDS)
def test_wrong_types_and_oversized_strings_are_refused(opened, kind):
    open_ = opened[kind]
    client = _client(open_.person)
    bodies = [
        _body(open_, 5),
        _body(open_, ["a list"]),
        _with_text(open_, "x" * 20_001),
        b'{"part": "' + open_.parts[0].encode() + b'", "payload": {"a": 1, "a": 2}}',
        b'{"part": "", "payload": {"score": NaN}}',
        b"\xff\xfe{}",
        b'{"payload": ',
    ]
    if not open_.fixed_part:
        bodies.append(_body(open_, open_.payloads[open_.parts[0]], part=["phase1"]))
    for endpoint in ENDPOINTS:
        for body in bodies:
            assert_refused(open_, client, endpoint, body)


def test_the_valid_payload_of_every_kind_still_goes_through(opened):
    for open_ in opened.values():
        client = _client(open_.person)
        draft = _send(
            client, open_.urls["page-draft"], _body(open_, open_.payloads[open_.parts[0]])
        )
        assert draft.status_code == 200, (open_.kind, draft.content)
        submitted = _send(
            client, open_.urls["api-submit"], _body(open_, open_.payloads[open_.parts[0]])
        )
        assert submitted.status_code == 201, (open_.kind, submitted.content)


# --- the layer itself -------------------------------------------------------------------------


def test_the_text_rule_names_each_problem():
    assert text_problem("fine") is None
    assert "NUL" in text_problem("a\x00b")
    assert "surrogate" in text_problem("\udfff")
    assert "longer than 3" in text_problem("abcd", limit=3)


def test_the_value_walk_names_where_and_never_recurses():
    deep: object = "leaf"
    for _ in range(50_000):  # far past Python's recursion limit
        deep = [deep]
    with pytest.raises(ValidationError) as caught:
        check_payload({"a": deep})
    [message] = caught.value.message_dict["payload"]
    assert message.startswith("payload.a.0.0") and f"at most {MAX_DEPTH} levels" in message
    with pytest.raises(ValidationError) as caught:
        check_payload({"criteria": {"C1": {"comment": "x\x00"}}, "n": 2**60, "f": float("inf")})
    messages = caught.value.message_dict["payload"]
    assert any(
        m.startswith("payload.criteria.C1.comment: the text contains a NUL") for m in messages
    )
    assert any(m.startswith("payload.n:") for m in messages)
    assert any(m.startswith("payload.f:") for m in messages)
    with pytest.raises(ValidationError):
        check_payload({"\ud800": 1})
    with pytest.raises(ValidationError):
        check_payload({1: "a key that is not text"})
    assert check_payload({"ok": [1, "two", None, True, 2.5]}) == {"ok": [1, "two", None, True, 2.5]}


def test_parsing_refuses_what_json_loads_would_accept_or_crash_on():
    for raw in (b"[" * 100_000, b'{"a": 1, "a": 2}', b"NaN", b"[Infinity]", b"1" * 5000, b"\xc3"):
        with pytest.raises(ValidationError):
            parse_json(raw)
    assert parse_json(b'{"a": [1, 2.5, "\\u00e9"]}') == {"a": [1, 2.5, "é"]}


def test_whole_numbers_are_ascii_digits_or_integers():
    assert whole_number("42", low=0, high=100) == 42
    assert whole_number(" 7 ", low=0, high=100) == 7
    assert whole_number(100, low=0, high=100) == 100
    for value in ("²", "٣", "5" * 5000, "-1", "1.5", True, 101, 2.0, None, [], "", "\u0661\u0660"):
        assert whole_number(value, low=0, high=100) is None, value

"""Property: whatever a participant sends to a draft or submit endpoint, the answer is never a
server error, and a refused request (400) writes nothing.

Hypothesis generates the requests: a kind's valid payload with one place replaced by a generated
JSON value (hostile texts and numbers among them: NUL, lone surrogates, "²", 5,000 digits,
oversized texts, deep nesting), extra keys, wrong types, or a body broken on the byte level
(truncated, not UTF-8, duplicate keys, NaN, deep nesting). Four endpoint families: the item
pages' draft and submit of the five kinds, the review API's draft and submit. Each family gets
``PAYLOAD_FUZZ_EXAMPLES`` requests (500 by default, shared evenly between the kinds; set it
higher for a longer hand run). Each request runs in a savepoint rolled back afterwards, so every
example starts from the same open assignment. On PostgreSQL, whose refusals (NUL in JSON, lone
surrogates) were the server errors found."""

from __future__ import annotations

import copy
import json
import math
import os

import pytest
from django.db import transaction
from django.test import Client
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from review.campaigns.payloads import MAX_TEXT
from tests.review.payload_world import build_open_assignments

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

EXAMPLES_PER_FAMILY = int(os.environ.get("PAYLOAD_FUZZ_EXAMPLES", "500"))
FAMILIES = ("page-draft", "page-submit", "api-draft", "api-submit")
KINDS = ("audit", "boundary", "human_baseline", "judge_validation", "qa_review")

HOSTILE = [
    None, True, False, 0, -1, 101, 2**53 - 1, 2**53, -(2**63), 10**19, 1.5, -0.0, 1e308,
    "", " ", "valid", "pass", "accept", "42", "²", "٣", "\x00", "a\x00b", "\ud800", "x\udfff",
    "\U0001f600", "5" * 5000, "9" * 21, "x" * (MAX_TEXT + 1), "<script>alert(1)</script>",
    [], {}, [None], {"": None}, [[[[[]]]]], {"label": "valid"}, ["answer_wrong"],
]  # fmt: skip
HOSTILE_TEXTS = [h for h in HOSTILE if isinstance(h, str)]
KEYS = [
    "label", "comment", "error_types", "criteria", "windows", "dimensions", "answers",
    "answerable", "confidence", "broken", "note", "local", "procedural", "next", "reason",
    "decision", "reasons", "turns", "edits", "field", "turn", "evidence", "value",
    "media_unplayable", "C1", "C3", "early", "", "\x00", "\ud800",
]  # fmt: skip

# Half the leaves are the hostile values above, half anything JSON can hold.
scalars = st.one_of(
    st.sampled_from(HOSTILE),
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=30),
    ),
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _paths(child, (*path, index))


def _at(value, path):
    for step in path:
        value = value[step]
    return value


def _replace(value, path, new):
    if not path:
        return new
    parent = value
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = new
    return value


def _fresh(draw, strategy):
    """A drawn value the mutations may change in place (sampled values are shared objects)."""
    return copy.deepcopy(draw(strategy))


@st.composite
def payloads(draw, base):
    payload = copy.deepcopy(base)
    for _ in range(draw(st.integers(0, 3))):
        paths = list(_paths(payload))
        how = draw(st.sampled_from(["replace", "replace", "text", "text", "text", "add", "nest"]))
        if how == "text":  # a text where the kind takes text: what a person types
            texts = [p for p in paths if isinstance(_at(payload, p), str)]
            if texts:
                path = draw(st.sampled_from(texts))
                text = draw(
                    st.one_of(
                        st.sampled_from(HOSTILE_TEXTS),
                        st.sampled_from(HOSTILE_TEXTS),
                        st.sampled_from(HOSTILE_TEXTS),
                        st.text(max_size=30),
                    )
                )
                payload = _replace(payload, path, text)
                continue
            how = "replace"
        path = draw(st.sampled_from(paths))
        target = _at(payload, path)
        if how == "add" and isinstance(target, dict):
            target[draw(st.sampled_from(KEYS) | st.text(max_size=6))] = _fresh(draw, json_values)
        elif how == "nest":
            deep = _fresh(draw, json_values)
            for _ in range(draw(st.integers(5, 40))):
                deep = [deep] if draw(st.booleans()) else {"a": deep}
            payload = _replace(payload, path, deep)
        else:
            payload = _replace(payload, path, _fresh(draw, json_values))
    return payload


@st.composite
def bodies(draw, open_):
    part = draw(st.sampled_from(open_.parts))
    payload = draw(payloads(open_.payloads[part]))
    if draw(st.integers(0, 9)) == 0:
        part = _fresh(draw, json_values)
    body = {"part": part, "payload": payload}
    if draw(st.integers(0, 19)) == 0:
        del body[draw(st.sampled_from(["part", "payload"]))]
    raw = json.dumps(body, allow_nan=True).encode()  # ensure_ascii: \u escapes of anything
    damage = draw(st.integers(0, 14))
    if damage == 0:
        raw = raw[: draw(st.integers(1, len(raw) - 1))]
    elif damage == 1:
        raw = raw.replace(b'"payload"', b'"payload": 1, "payload"', 1)
    elif damage == 2:
        raw = raw[:-1] + b', "x": "\xff\xfe"}'
    elif damage == 3:
        depth = draw(st.sampled_from([11, 1_000, 10_000, 100_000]))
        raw = raw[:-1] + b', "deep": ' + b"[" * depth + b"]" * depth + b"}"
    return raw


def _send(client, url, raw):
    method = client.put if url.endswith("draft/") else client.post
    return method(url, raw, content_type="application/json")


def _fuzz(open_, family: str, client, examples: int, tally: dict) -> None:
    url = open_.urls[family]

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(raw=bodies(open_))
    def send(raw):
        with transaction.atomic():
            before = open_.snapshot()
            response = _send(client, url, raw)
            tally["sent"][family] += 1
            code = response.status_code
            tally["statuses"][code] = tally["statuses"].get(code, 0) + 1
            where = f"{open_.kind} {family} {raw[:160]!r}"
            if code >= 500:
                tally["failures"].append(f"{where} -> {code}")
            elif code == 400:
                answer = response.json()
                if not answer or not all(answer.values()):
                    tally["failures"].append(f"{where} -> 400 without a reason: {answer}")
                if open_.snapshot() != before:
                    tally["failures"].append(f"{where} -> 400 but something was written")
            transaction.set_rollback(True)

    send()


# 2,000 requests: the default 300 s guard struck once on a two-core machine at load 20. A guard
# against a hang, not a speed test.
@pytest.mark.timeout(1200)
def test_no_payload_makes_a_server_error_and_a_refusal_writes_nothing(
    tmp_path, admin_user, annotator, make_video, audit_source
):
    opened = build_open_assignments(
        tmp_path=tmp_path, admin=admin_user, annotator=annotator, make_video=make_video,
        source=audit_source,
    )  # fmt: skip
    per_kind = math.ceil(EXAMPLES_PER_FAMILY / len(KINDS))
    tally = {"sent": dict.fromkeys(FAMILIES, 0), "statuses": {}, "failures": []}
    for kind in KINDS:
        open_ = opened[kind]
        client = Client(raise_request_exception=False)
        client.force_login(open_.person)
        for family in FAMILIES:
            _fuzz(open_, family, client, per_kind, tally)
    failures, statuses = tally["failures"], tally["statuses"]
    assert not failures, f"{len(failures)} failures, e.g.\n" + "\n".join(failures[:10])
    for family in FAMILIES:
        assert tally["sent"][family] >= EXAMPLES_PER_FAMILY, (family, tally["sent"])
    # The generator reaches both sides: refusals and accepted drafts or submissions.
    assert statuses.get(400, 0) > 0 and statuses.get(200, 0) + statuses.get(201, 0) > 0, statuses
    print(f"sent {tally['sent']}, answers {dict(sorted(statuses.items()))}")

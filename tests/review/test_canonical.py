"""The one canonical-bytes and SHA-256 code: RFC 8785 on the types a manifest holds."""

import hashlib
import json

import pytest

from studio.canonical import (
    RecordStream,
    canonical_bytes,
    sample_list_bytes,
    sample_list_sha256,
    seeded_rank,
)


def test_object_keys_sorted_by_utf16_code_units_not_code_points():
    # U+1F600 is a surrogate pair (D83D DE00) in UTF-16, so it sorts before U+FB01 there,
    # although its code point is larger: RFC 8785 section 3.2.3.
    value = {"\ufb01": 1, "\U0001f600": 2, "b": 3, "a": 4, "": 5}
    assert canonical_bytes(value) == '{"":5,"a":4,"b":3,"😀":2,"ﬁ":1}'.encode()


def test_strings_escape_exactly_what_rfc8785_escapes():
    value = ['"\\/\b\f\n\r\t\x00\x1f\x7f', "é€😀"]
    assert canonical_bytes(value) == (
        b'["\\"\\\\/\\b\\f\\n\\r\\t\\u0000\\u001f\x7f","' + "é€😀".encode() + b'"]'
    )


def test_literals_integers_and_nesting_without_whitespace():
    value = {"z": [True, False, None, 0, -7, 2**53 - 1], "a": {"b": []}, "m": {}}
    expected = b'{"a":{"b":[]},"m":{},"z":[true,false,null,0,-7,9007199254740991]}'
    assert canonical_bytes(value) == expected


def test_output_parses_back_to_the_same_value():
    value = {"k": ["x", 1, {"y": None}], "ü": "\u2028"}
    assert json.loads(canonical_bytes(value)) == value


@pytest.mark.parametrize(
    "bad",
    [1.5, 2**53, -(2**53), {1: "a"}, {"a": {1, 2}}, b"bytes", "\ud800"],
    ids=["float", "big", "small", "int-key", "set", "bytes", "lone-surrogate"],
)
def test_values_outside_the_profile_are_refused(bad):
    with pytest.raises((TypeError, ValueError)):
        canonical_bytes(bad)


def test_sample_list_is_sorted_one_id_per_line_with_final_newline():
    ids = ["b-2", "a-10", "a-9"]
    assert sample_list_bytes(ids) == b"a-10\na-9\nb-2\n"
    assert sample_list_sha256(ids) == hashlib.sha256(b"a-10\na-9\nb-2\n").hexdigest()
    assert sample_list_bytes([]) == b""


def test_sample_list_refuses_duplicates_and_line_breaks():
    with pytest.raises(ValueError, match="twice"):
        sample_list_bytes(["a", "a"])
    with pytest.raises(ValueError, match="line break"):
        sample_list_bytes(["a\nb"])
    with pytest.raises(ValueError):
        sample_list_bytes([" a"])


def test_record_stream_hashes_the_lines_it_returns_and_refuses_disorder():
    stream = RecordStream()
    lines = [stream.add({"sample_id": s, "v": i}) for i, s in enumerate(["a", "b"])]
    assert lines[0] == (b"a\n", b'{"sample_id":"a","v":0}\n')
    assert stream.sample_list_sha256 == sample_list_sha256(["b", "a"])
    assert stream.records_sha256 == hashlib.sha256(b"".join(r for _, r in lines)).hexdigest()
    with pytest.raises(ValueError, match="sorted"):
        stream.add({"sample_id": "a"})


def test_seeded_rank_is_sha256_of_seed_colon_key():
    assert seeded_rank(20260713, "x") == hashlib.sha256(b"20260713:x").digest()


def test_the_plain_python_recipe_of_the_docs_gives_the_same_bytes_for_ascii_keys():
    # docs/manifests.md tells readers they may recompute with json.dumps; keep that true.
    value = {
        "sample_id": "07c23e36-3791-5605-a092-05cc842b7ae4",
        "local_intent": 'grip the "lid"\tand — ✓ 😀',
        "plausible_next_steps": ["a\\b", "\x01", "/"],
        "start_us": 0,
        "end_us": 9_999_999,
        "group": None,
        "ok": True,
    }
    recipe = json.dumps(
        value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False
    ).encode("utf-8")
    assert canonical_bytes(value) == recipe

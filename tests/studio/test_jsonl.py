"""The one JSON Lines reader of every import (studio/jsonl.py)."""

from __future__ import annotations

import io

import pytest

from studio.jsonl import (
    MAX_LINE_BYTES,
    ImportRefused,
    Problems,
    Seen,
    chunks,
    json_lines,
    numbered,
    rereadable,
)


def _read(data: bytes, **kwargs):
    problems = Problems()
    good = list(json_lines(io.BytesIO(data), problems=problems, **kwargs))
    return good, problems


def test_good_lines_come_with_their_numbers_blank_lines_skipped():
    good, problems = _read(
        b'\xef\xbb\xbf{"a": 1}\n\n   \n{"b": [1, {"c": null}]}\r\n{"d": "\xc3\xa9"}'
    )
    assert good == [(1, {"a": 1}), (4, {"b": [1, {"c": None}]}), (5, {"d": "é"})]
    assert not problems


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (b'{"a": 1, "b": 2, "a": 3}', "the key 'a' appears twice in one object"),
        (b'{"x": {"k": 1, "k": 1}}', "the key 'k' appears twice in one object"),
        (b'{"a": "\xff"}', "not UTF-8 (byte 0xff at byte 8)"),
        (b'{"a": "\xed\xa0\x80"}', "not UTF-8 (byte 0xed at byte 8)"),  # an encoded surrogate
        (b'{"a": "x\\u0000"}', "a holds a NUL character (U+0000) at character 2"),
        (
            b'{"a": ["\\udfff"]}',
            "a[0] holds a lone surrogate (U+DFFF) at character 1, which is not text",
        ),
        (b'{"\\u0000": 1}', "key holds a NUL character (U+0000) at character 1"),
        (b'{"a": Infinity}', "Infinity is not a JSON number"),
        (b'{"a": -Infinity}', "-Infinity is not a JSON number"),
        (b'{"a": 1', "not JSON (Expecting ',' delimiter at column 8)"),
        (b"[1, 2]", "not a JSON object"),
        (b'"text"', "not a JSON object"),
        (b"[" * 100 + b"]" * 100, "not a JSON object"),
        (
            b'{"a": ' + b"[" * 100 + b"]" * 100 + b"}",
            "a[0][0][0][0][0][0][0][0][0][0][0][0][… is nested deeper than 64 levels",
        ),
        (b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested deeper than 64 levels"),
    ],
)
def test_a_bad_line_is_named_and_not_yielded(line, problem):
    good, problems = _read(b'{"ok": 1}\n' + line + b'\n{"ok": 3}\n')
    assert good == [(1, {"ok": 1}), (3, {"ok": 3})]
    assert problems.shown == [(2, problem)]


def test_strings_are_bounded():
    good, problems = _read(b'{"a": "' + b"x" * 11 + b'"}', max_chars=10)
    assert not good and problems.shown == [(1, "a is 11 characters long; at most 10")]


def test_a_line_over_the_limit_is_skipped_without_being_held():
    huge = b'{"a": "' + b"x" * (MAX_LINE_BYTES + 10) + b'"}'
    good, problems = _read(b'{"n": 1}\n' + huge + b'\n{"n": 3}\n')
    assert good == [(1, {"n": 1}), (3, {"n": 3})]
    assert problems.shown == [(2, f"longer than {MAX_LINE_BYTES:,} bytes")]


def test_at_most_a_hundred_problems_are_kept_then_counted():
    good, problems = _read(b"nope\n" * 250)
    assert not good and problems.total == 250 and len(problems.shown) == 100
    with pytest.raises(ImportRefused) as refused:
        problems.refuse()
    messages = refused.value.messages()
    assert len(messages) == 101 and messages[-1] == "… and 150 more problem(s)"
    assert refused.value.report("f.jsonl").startswith("Nothing imported: 250 problem(s) in f.jsonl")


def test_no_problem_refuses_nothing():
    Problems().refuse()


def test_problems_are_listed_by_line_those_without_a_line_first():
    problems = Problems()
    problems.add(9, "late")
    problems.add(2, "early")
    problems.add(None, "the file holds nothing")
    with pytest.raises(ImportRefused) as refused:
        problems.refuse()
    assert refused.value.messages() == ["the file holds nothing", "line 2: early", "line 9: late"]


def test_seen_names_every_repeat_with_its_first_line():
    seen = Seen()
    for line, key in enumerate(["a", "b", "a", "c", "b", "a", "é"], start=1):
        seen.add(key, line)
    assert seen.duplicates() == ([(3, 1), (5, 2), (6, 1)], 3)
    assert seen.duplicates(first=2) == ([(3, 1), (5, 2)], 3)
    assert Seen().duplicates() == ([], 0)


def test_seen_holds_a_million_keys_in_twenty_megabytes():
    seen = Seen()
    for n in range(1_000_000):
        seen.add(f"{n:036d}", n + 1)
    for n in range(200_000):  # a file that repeats a fifth of its keys, the last one twice
        seen.add(f"{n:036d}" if n < 199_999 else f"{5:036d}", 1_000_001 + n)
    repeats, total = seen.duplicates()
    assert total == 200_000 and len(repeats) == 100
    assert repeats[:2] == [(1_000_001, 1), (1_000_002, 2)]
    assert len(seen) == 1_200_000
    assert sum(len(block) for block in seen._blocks) <= 20 * 1_200_000 + 20 * Seen.BLOCK
    again = Seen()
    for line in range(1, 4):
        again.add("same", line)
    again.add("x", 9)
    again.add("same", 10)
    assert again.duplicates() == ([(2, 1), (3, 1), (10, 1)], 3)


def test_a_stream_is_read_again_from_a_copy(tmp_path):
    stream = io.BytesIO(b'{"a": 1}\n{"a": 2}\n')
    with rereadable(stream) as path:
        for _ in range(2):
            assert [n for n, _ in json_lines(path, problems=Problems())] == [1, 2]
    assert not path.exists()
    file = tmp_path / "f.jsonl"
    file.write_bytes(b"{}\n")
    with rereadable(str(file)) as same:
        assert same == file


def test_chunks_and_numbering():
    assert list(chunks(range(5), 2)) == [[0, 1], [2, 3], [4]]
    assert list(numbered([{"a": 1}, (7, {"b": 2})])) == [(1, {"a": 1}), (7, {"b": 2})]

"""The one rule for text from outside (studio/text.py): NUL and surrogates refused or replaced,
every echo of a secret redacted, every string bounded."""

from __future__ import annotations

import base64
import json
import urllib.parse

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studio.text import (
    REDACTED,
    REPLACEMENT,
    Mode,
    TextRefused,
    json_clean,
    redact,
    text_clean,
    text_problem,
)

KEY = "sk-live-7Hq2Zr9Kd3Xw5Pb8Nc1Vt6Ym4Ls0Fg"


def _json_escaped(text: str, upper: bool = False) -> str:
    return "".join(f"\\u{ord(c):04X}" if upper else f"\\u{ord(c):04x}" for c in text)


def _b64(data: str, urlsafe: bool = False) -> str:
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    return encode(data.encode()).decode()


ECHOES = {
    "plain": KEY,
    "bearer": f"Bearer {KEY}",
    "json-escaped": _json_escaped(KEY),
    "json-escaped upper-case hex": _json_escaped(KEY, upper=True),
    "json-escaped twice": _json_escaped(KEY).replace("\\", "\\\\"),
    "half json-escaped": KEY[:10] + _json_escaped(KEY[10:25]) + KEY[25:],
    "json string of a json string": json.dumps(json.dumps({"model": KEY})),
    "url-encoded": urllib.parse.quote(KEY, safe=""),
    "url-encoded, every character": "".join(f"%{ord(c):02x}" for c in KEY),
    "base64 of the key": _b64(KEY),
    "base64 of Bearer key": _b64(f"Bearer {KEY}"),
    "base64 of a header line": _b64(f"Authorization: Bearer {KEY}"),
    "url-safe base64, shifted": _b64(f"xx Bearer {KEY}", urlsafe=True),
    "base64 with json-escaped slashes": _b64(f"?Bearer {KEY}").replace("/", "\\/"),
    "a quoted part": f"{KEY[:12]}...{KEY[-8:]}",
}


@pytest.mark.parametrize("form", ECHOES)
def test_every_echo_of_the_key_is_redacted(form):
    text = f'{{"error": "bad key {ECHOES[form]} given", "n": 1}}'
    cleaned = redact(text, [KEY])
    assert REDACTED in cleaned
    for name, echo in ECHOES.items():
        if name != "a quoted part":
            assert echo not in cleaned, name
    assert KEY[3:11] not in cleaned and KEY[-8:] not in cleaned
    assert cleaned.startswith('{"error": "bad key ') and cleaned.endswith(' given", "n": 1}')


def test_text_without_the_key_is_unchanged():
    text = 'a "JSON" text with \\u00e9scapes, 100% \\/ slashes and base64 QmVhcmVy'
    assert redact(text, [KEY]) == text
    assert redact(text, []) == text


@settings(max_examples=300, deadline=None)
@given(
    before=st.text(max_size=40),
    after=st.text(max_size=40),
    form=st.sampled_from(sorted(ECHOES)),
    secret=st.text(
        alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=16, max_size=60
    ),
)
def test_no_echo_of_any_key_survives(before, after, form, secret):
    echo = ECHOES[form].replace(KEY, secret) if form in ("plain", "bearer") else None
    if echo is None:
        echo = {
            "json-escaped": _json_escaped(secret),
            "url-encoded": "".join(f"%{ord(c):02X}" for c in secret),
            "base64 of Bearer key": _b64(f"Bearer {secret}"),
        }.get(form, secret)
    cleaned = redact(before + echo + after, [secret])
    assert secret not in cleaned
    assert echo not in cleaned
    for i in range(len(secret) - 7):
        assert secret[i : i + 8] not in cleaned


def test_problems_are_named_with_their_place():
    assert text_problem("fine text, é, 😀") is None
    assert text_problem("ab\x00c") == "holds a NUL character (U+0000) at character 3"
    assert "lone surrogate (U+D800) at character 1" in text_problem("\ud800x")


@pytest.mark.parametrize("bad", ["a\x00b", "\ud800", "x\udfff", "ok\x00\ud83d"])
def test_people_s_text_with_nul_or_surrogates_is_refused(bad):
    with pytest.raises(TextRefused) as refused:
        text_clean(bad, mode=Mode.REFUSE, where="comment")
    assert refused.value.where == "comment" and str(refused.value).startswith("comment holds")


def test_a_provider_s_text_keeps_a_record_with_replacements():
    assert text_clean("a\x00b\ud800c", mode=Mode.REPLACE) == f"a{REPLACEMENT}b{REPLACEMENT}c"
    stored = text_clean(f"model {KEY}\x00", mode=Mode.REPLACE, secrets=[KEY])
    assert stored == f"model {REDACTED}{REPLACEMENT}"
    stored.encode("utf-8")  # storable


def test_length_is_bounded_by_mode():
    with pytest.raises(TextRefused, match="is 2,001 characters long; at most 2,000"):
        text_clean("x" * 2001, mode=Mode.REFUSE, max_chars=2000)
    cut = text_clean("y" * 10_000_000, mode=Mode.REPLACE, max_chars=200)
    assert len(cut) == 200 and cut.endswith(" [… cut; 10,000,000 characters in all]")
    assert text_clean("z" * 300, mode=Mode.REPLACE, max_chars=20) == "z" * 20


def test_a_key_across_the_bound_is_still_redacted():
    text = "x" * 190 + KEY + "y" * 1000
    cut = text_clean(text, mode=Mode.REPLACE, max_chars=200, secrets=[KEY])
    assert len(cut) <= 200
    assert KEY[:10] not in cut and KEY[-10:] not in cut and "x" * 150 in cut


def test_json_values_are_walked_keys_included():
    value = {"answers": ["ok", "a\x00"], f"k{KEY}": {"deep\ud800": float("nan")}, "n": 3}
    cleaned = json_clean(value, mode=Mode.REPLACE, secrets=[KEY])
    assert cleaned == {
        "answers": ["ok", f"a{REPLACEMENT}"],
        f"k{REDACTED}": {f"deep{REPLACEMENT}": None},
        "n": 3,
    }
    with pytest.raises(TextRefused) as refused:
        json_clean({"edits": [{"text": "fine"}, {"text": "bad\x00"}]}, mode=Mode.REFUSE)
    assert refused.value.where == "$.edits[1].text"
    with pytest.raises(TextRefused, match="key holds a lone surrogate"):
        json_clean({"\udc00": 1}, mode=Mode.REFUSE)
    with pytest.raises(TextRefused, match="not a finite number"):
        json_clean({"score": float("inf")}, mode=Mode.REFUSE)


def test_depth_is_bounded_without_recursing_into_it():
    deep: list = []
    for _ in range(10_000):
        deep = [deep]
    with pytest.raises(TextRefused, match="nested deeper than 64 levels"):
        json_clean(deep, mode=Mode.REFUSE)
    kept = json_clean(deep, mode=Mode.REPLACE, max_depth=3)
    assert kept == [[["[nested deeper than 3 levels; not kept]"]]]


def test_secrets_must_be_a_list():
    with pytest.raises(TypeError):
        text_clean("x", mode=Mode.REPLACE, secrets=KEY)

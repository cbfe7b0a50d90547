"""What a provider says is text from outside (studio/text.py): a provider that puts the key it
was sent, NUL characters and lone surrogates into every field of its answers (model id, id,
fingerprint, reply, error body, headers) and a reply of 10 MB leave no echo of the key and no
character PostgreSQL refuses in anything stored, exported or shown, and every item ends with an
outcome saying why."""

from __future__ import annotations

import base64
import io
import json
import logging

import pytest
from django.core.management import call_command

from scoring.judges import judge_start
from scoring.models import Judgement, RunItem
from scoring.providers.client import MAX_KEPT_CHARS, MAX_READ_BYTES, MAX_REPLY_CHARS
from scoring.runs import run_drive, run_predict
from scoring.runs.export import run_lines
from tests.scoring.test_runs_safety import _pages

pytestmark = pytest.mark.django_db
KEY = "sk-hostile-test-9a8b7c6d5e4f3a2b1c0d-secret"


def _forms(key: str) -> dict[str, str]:
    return {
        "plain": key,
        "json-escaped": "".join(f"\\u{ord(c):04x}" for c in key),
        "url-encoded": "".join(f"%{ord(c):02X}" for c in key),
        "base64 of Bearer key": base64.b64encode(f"Bearer {key}".encode()).decode(),
        **{f"run {i}": key[i : i + 8] for i in range(0, len(key) - 7, 5)},
    }


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _assert_clean(where: str, text: str) -> None:
    """No form of the key in the text, in the strings of the JSON it holds, nor in theirs (a
    raw response is JSON in JSON); no NUL or surrogate in the text or in its JSON's strings (a
    raw response may hold the escape ``\\u0000`` as six harmless characters: that is why the
    JSON is decoded rather than searched, and only one level for these)."""
    values, todo = [], [(text, 0)]
    while todo:  # every string, and the strings of those that are JSON (a raw response), ...
        value, depth = todo.pop()
        values.append((value, depth))
        for chunk in [value, *value.splitlines()] if depth < 3 and "{" in value else []:
            try:
                todo += [(s, depth + 1) for s in _strings(json.loads(chunk))]
            except (ValueError, RecursionError):
                continue
    for value, depth in values:
        for name, form in _forms(KEY).items():
            assert form not in value, f"{where}: the key, {name}"
        if depth > 1:
            continue
        assert "\x00" not in value, f"{where}: NUL in {value[:80]!r}"
        assert not any("\ud800" <= c <= "\udfff" for c in value), f"{where}: a surrogate"


def _run(name, release, endpoint, packages):
    run = run_predict(
        name=name,
        endpoint=endpoint,
        package=packages("frames-prediction"),
        condition="prompt_only",
        release=release,
    )
    run_drive(run_id=run.pk)
    run.refresh_from_db()
    return run


def _everything_stored_and_shown(runs, client, tmp_path) -> dict[str, str]:
    dump = io.StringIO()
    call_command("dumpdata", "scoring", stdout=dump)
    shown = io.StringIO()
    exports = []
    for run in runs:
        call_command("run_show", run.name, "--json", stdout=shown)
        path = tmp_path / f"{run.name}.jsonl"
        call_command("run_export", run.name, "-o", str(path))
        exports.append(path.read_text())
        exports.append(json.dumps([*run_lines(run)], ensure_ascii=False))
    return {
        "database": dump.getvalue(),
        "run_show": shown.getvalue(),
        "exports": "".join(exports),
        "pages": _pages(client, runs),
    }


def test_a_provider_that_echoes_the_key_with_nul_everywhere_leaves_neither(
    frozen_release, make_endpoint, packages, stand_in, monkeypatch, tmp_path, client, admin_user
):
    monkeypatch.setenv("STUDIO_HOSTILE_KEY", KEY)
    endpoint = make_endpoint(api_key_env="STUDIO_HOSTILE_KEY", max_concurrency=1, max_attempts=1)
    stand_in.rules(
        {"times": 1, "action": {"echo_key": "everywhere"}},
        {"times": 1, "action": {"echo_key": "reply"}},
        {"times": 1, "action": {"echo_key": "error", "status": 400}},
    )
    run = _run("p", frozen_release, endpoint, packages)
    items = list(run.items.order_by("position"))
    assert [i.state for i in items] == ["done"] * 3 and run.status == "finished"
    nul, echoed, error = items
    assert nul.outcome == "parse_failure"
    assert "reply.local_intent holds a NUL character (U+0000)" in nul.detail
    assert "cannot be stored" in nul.detail
    assert nul.returned_model.startswith("[redacted] [redacted] [redacted] [redacted]")
    assert "\ufffd" in nul.returned_model and len(nul.returned_model) <= 200  # NUL replaced, cut
    assert echoed.outcome == "ok"  # a key in a reply is cut out; the rest of it stands
    assert echoed.prediction["local_intent"].startswith("stand-in guess: ")
    assert "[redacted]" in echoed.prediction["local_intent"]
    assert error.outcome == "api_error" and error.detail.startswith("HTTP 400: bad key: [redacted]")

    # A second run: lone surrogates, a raw NUL byte in the body, a NUL in a header.
    stand_in.rules(
        {"times": 1, "action": {"echo_key": "surrogate"}},
        {"times": 1, "action": {"echo_key": "raw_nul"}},
        {"times": 1, "action": {"echo_key": "header_nul"}},
    )
    other = make_endpoint(  # another model: nothing of the first run comes from the cache
        "other", model="stand-in-other", api_key_env="STUDIO_HOSTILE_KEY", max_attempts=1
    )
    second = _run("q", frozen_release, other, packages)
    surrogate, raw_nul, header_nul = second.items.order_by("position")
    assert surrogate.outcome == "parse_failure" and "lone surrogate (U+D800)" in surrogate.detail
    assert raw_nul.outcome == "api_error" and "not JSON" in raw_nul.detail
    assert raw_nul.raw_response.startswith('{"model": "[redacted]\ufffd"')
    assert header_nul.outcome == "api_error" and "connection error" in header_nul.detail

    # Judges: a judge that echoes everywhere fails its unit; one that echoes in its reasons is
    # stored without the key.
    judges = []
    for name, mode, outcome in (("j-nul", "everywhere", "parse_failure"), ("j", "reply", "ok")):
        stand_in.rules({"times": -1, "action": {"echo_key": mode}})
        judge = judge_start(
            name=name,
            kind="reference",
            endpoint=endpoint,
            package=packages("reference-judge"),
            runs=[run],
        )
        run_drive(run_id=judge.pk)
        judge.refresh_from_db()
        assert set(judge.items.values_list("outcome", flat=True)) == {outcome}, name
        judges.append(judge)
    reasons = Judgement.objects.filter(run=judges[1]).values_list("justification", flat=True)
    assert all("[redacted]" in r for r in reasons)

    client.force_login(admin_user)
    for where, text in _everything_stored_and_shown(
        [run, second, *judges], client, tmp_path
    ).items():
        _assert_clean(where, text)


def test_a_reply_of_10_mb_ends_as_a_parse_failure_and_is_kept_bounded(
    frozen_release, make_endpoint, packages, stand_in, tmp_path, client, admin_user
):
    stand_in.rules(
        {"times": 1, "action": {"reply_bytes": 10_000_000}},
        {"times": 1, "action": {"reply_bytes": MAX_READ_BYTES + 1_000_000}},
    )
    run = _run("big", frozen_release, make_endpoint(max_concurrency=1, max_attempts=1), packages)
    ten, seventeen, normal = run.items.order_by("position")
    assert ten.outcome == "parse_failure"
    assert f"characters long; at most {MAX_REPLY_CHARS:,} are read" in ten.detail
    assert len(ten.raw_response) == MAX_KEPT_CHARS
    assert ten.raw_response.endswith("characters in all]")
    assert seventeen.outcome == "parse_failure"
    assert seventeen.detail == f"the reply is longer than {MAX_READ_BYTES:,} bytes; not read"
    assert len(seventeen.raw_response) == MAX_KEPT_CHARS
    assert normal.outcome == "ok"
    client.force_login(admin_user)
    page = client.get(f"/runs/{run.pk}/items/{ten.pk}/")
    assert page.status_code == 200 and len(page.content) < 3 * MAX_KEPT_CHARS


def test_a_result_that_cannot_be_stored_still_ends_its_item(
    frozen_release, make_endpoint, packages, stand_in, monkeypatch, caplog
):
    """Should anything in a result still be refused by the database, the driver does not crash:
    the item ends as a parse failure saying so and the next items go on."""
    from scoring.runs import execute

    real = execute.result_store
    calls = []

    def refuse_the_first(**kwargs):
        calls.append(kwargs["fields"]["outcome"])
        if len(calls) == 1:
            raise ValueError("PostgreSQL text fields cannot contain NUL (0x00) bytes")
        return real(**kwargs)

    monkeypatch.setattr(execute, "result_store", refuse_the_first)
    caplog.set_level(logging.ERROR, logger="scoring.runs")
    run = _run("s", frozen_release, make_endpoint(max_concurrency=1), packages)
    outcomes = list(run.items.order_by("position").values_list("outcome", "detail"))
    assert outcomes[0] == (
        "parse_failure",
        "the reply could not be stored (ValueError); nothing of it kept",
    )
    assert [o for o, _ in outcomes[1:]] == ["ok", "ok"]
    assert run.status == "finished"
    assert "could not be stored" in caplog.text
    assert RunItem.objects.filter(run=run, raw_response="").count() == 1

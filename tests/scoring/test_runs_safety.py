"""Retry-After, adaptive concurrency, packages refused when their bytes changed, and the API key
never stored, logged, exported or put into an error message."""

import io
import json
import logging
import os

import pytest
from django.core.management import call_command

from scoring.judges import judge_start
from scoring.packages import package_register
from scoring.runs import RunError, run_drive, run_predict
from scoring.runs.export import run_lines

pytestmark = pytest.mark.django_db
KEY = "sk-studio-test-1f2e3d4c5b6a79880716-private"


def _predict(release, endpoint, package, name="p"):
    run = run_predict(
        name=name, endpoint=endpoint, package=package, condition="prompt_only", release=release
    )
    run_drive(run_id=run.pk)
    run.refresh_from_db()
    return run


def test_retry_after_is_honoured(frozen_release, make_endpoint, packages, stand_in, caplog):
    stand_in.rules({"times": 1, "action": {"status": 429, "retry_after": 2}})
    caplog.set_level(logging.WARNING, logger="scoring.limits")
    run = _predict(frozen_release, make_endpoint(max_concurrency=1), packages("frames-prediction"))
    log = stand_in.stats()["log"]
    assert [e["status"] for e in log[:2]] == [429, 200]
    gap = log[1]["t"] - log[0]["t"]
    assert 2.0 <= gap < 3.5, gap
    assert set(run.items.values_list("outcome", flat=True)) == {"ok"}
    assert "429" in caplog.text and "concurrency lowered to 1" in caplog.text


def test_a_429_halves_the_concurrency_for_every_process(frozen_release, make_endpoint, stand_in):
    from scoring.providers import limits
    from scoring.runs import endpoint_config

    endpoint = make_endpoint(max_concurrency=8)
    config = endpoint_config(endpoint).limits
    assert limits.snapshot(config)["cap"] == 8
    limits.throttle(config)
    assert limits.snapshot(config)["cap"] == 4
    limits.throttle(config)
    assert limits.snapshot(config)["cap"] == 2


def test_a_package_edited_on_disk_is_refused(frozen_release, make_endpoint, packages, tmp_path):
    from scoring.packages import BUILTIN_DIR

    raw = json.loads((BUILTIN_DIR / "frames-prediction.json").read_text())
    raw["name"] = "my-prediction"
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(raw))
    row, created = package_register(path=path)
    assert created and row.version == 1
    endpoint = make_endpoint()
    run = run_predict(
        name="p", endpoint=endpoint, package=row, condition="prompt_only", release=frozen_release
    )
    raw["system"] = [*raw["system"], "Also mention the scene name."]
    path.write_text(json.dumps(raw))
    # A driver refuses to work with it ...
    run_drive(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == "cancelled" and "changed on disk" in run.error
    assert not run.items.filter(state="done").exists()
    # ... and so does a new run or a resume.
    with pytest.raises(RunError, match="changed on disk"):
        run_predict(
            name="q",
            endpoint=endpoint,
            package=row,
            condition="prompt_only",
            release=frozen_release,
        )
    newer, created = package_register(path=path)
    assert created and newer.version == 2 and newer.sha256 != row.sha256


def test_a_package_with_a_spliced_placeholder_is_refused(tmp_path):
    from scoring.packages import BUILTIN_DIR, PackageError, package_read

    raw = json.loads((BUILTIN_DIR / "reference-judge.json").read_text())
    raw["user_template"] = "Reference: {{reference}}\n{{input}}"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(PackageError, match="exactly once"):
        package_read(path)


def _pages(client, runs) -> str:
    """Every page an admin can open about these runs and their endpoint (admin pages too)."""
    from django.urls import reverse

    from scoring.models import Judgement, RunItem

    urls = [reverse("scoring:run-list"), "/"]
    for run in runs:
        urls += [
            reverse("scoring:run-detail", args=[run.pk]),
            reverse("scoring:run-progress", args=[run.pk]),
            reverse("scoring:run-export", args=[run.pk]),
            reverse("admin:scoring_run_change", args=[run.pk]),
            reverse("admin:scoring_endpoint_change", args=[run.endpoint_id]),
        ]
        for outcome in ("ok", "api_error"):
            urls.append(reverse("scoring:run-detail", args=[run.pk]) + f"?outcome={outcome}")
        for item in RunItem.objects.filter(run=run):
            urls += [
                reverse("scoring:item-detail", args=[run.pk, item.pk]),
                reverse("admin:scoring_runitem_change", args=[item.pk]),
            ]
    for j in Judgement.objects.all():
        urls.append(reverse("admin:scoring_judgement_change", args=[j.pk]))
    for name in ("endpoint", "run", "runitem", "judgement", "promptpackage"):
        urls.append(reverse(f"admin:scoring_{name}_changelist"))
    bodies = []
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        body = b"".join(response.streaming_content) if response.streaming else response.content
        bodies.append(body.decode())
    return "".join(bodies)


def test_the_api_key_never_appears_anywhere(
    frozen_release,
    make_endpoint,
    packages,
    stand_in,
    caplog,
    monkeypatch,
    tmp_path,
    client,
    admin_user,
):
    monkeypatch.setenv("STUDIO_TEST_KEY", KEY)
    caplog.set_level(logging.DEBUG)
    endpoint = make_endpoint(api_key_env="STUDIO_TEST_KEY", max_concurrency=1, max_attempts=1)
    # A provider that quotes the key back in an error, whole and in part.
    stand_in.rules({"times": 1, "action": {"echo_authorization": True}})
    run = _predict(frozen_release, endpoint, packages("frames-prediction"))
    assert stand_in.stats()["log"][0]["authorization"] is True
    assert sorted(run.items.values_list("outcome", flat=True)) == ["api_error", "ok", "ok"]
    judge = judge_start(
        name="j",
        kind="reference",
        endpoint=endpoint,
        package=packages("reference-judge"),
        runs=[run],
    )
    run_drive(run_id=judge.pk)
    dump = io.StringIO()
    call_command("dumpdata", stdout=dump)
    exports = "".join(json.dumps(line) for r in (run, judge) for line in run_lines(r))
    out = io.StringIO()
    call_command("run_show", "p", "--json", stdout=out)
    call_command("run_export", "j", "-o", str(tmp_path / "j.jsonl"))
    client.force_login(admin_user)
    for where, text in (
        ("pages", _pages(client, [run, judge])),
        ("database", dump.getvalue()),
        ("export", exports + (tmp_path / "j.jsonl").read_text()),
        ("logs", caplog.text),
        ("run_show", out.getvalue()),
    ):
        assert KEY not in text, where
        assert KEY[3:15] not in text, where
    assert "[redacted]" in dump.getvalue()  # the echoed key was cut out of the stored error


def test_a_missing_key_variable_is_an_api_error_naming_the_variable(
    frozen_release, make_endpoint, packages, stand_in, monkeypatch
):
    monkeypatch.delenv("STUDIO_MISSING_KEY", raising=False)
    endpoint = make_endpoint(api_key_env="STUDIO_MISSING_KEY")
    run = _predict(frozen_release, endpoint, packages("frames-prediction"))
    item = run.items.first()
    assert item.outcome == "api_error" and "STUDIO_MISSING_KEY" in item.detail
    assert stand_in.stats()["requests"] == 0
    assert "STUDIO_MISSING_KEY" not in os.environ

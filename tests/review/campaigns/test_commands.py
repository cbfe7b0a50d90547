"""The campaign commands: freeze a manifest, open a campaign, read its status (text and JSON);
bad input fails with a clear message and writes nothing."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.releases import release_freeze
from review.campaigns.models import Campaign
from review.models import Manifest


def _run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture
def release(dataset, admin_user):
    return release_freeze(name="cmd_release", author=admin_user)


def test_freeze_open_and_report(trivial_kind, release, reviewers):
    people = reviewers(3)
    text = _run(
        "freeze_manifest", "cmd_m", "--release", "cmd_release", "--kind", "audit",
        "--method", "stratified", "--seed", "5", "--params", '{"target_n": 6, "cover": []}',
    )  # fmt: skip
    manifest = Manifest.objects.get(name="cmd_m")
    assert manifest.sample_count == 6
    assert manifest.sample_list_sha256 in text and manifest.manifest_sha256 in text
    names = ",".join(p.username for p in people)
    text = _run(
        "campaign_create", "cmd_c", "--kind", "trivial", "--manifest", "cmd_m",
        "--people", names, "--per-item", "2", "--seed", "11",
    )  # fmt: skip
    assert "6 items, 2 per item, 3 people, seed 11" in text
    report = json.loads(_run("campaign_status", "cmd_c", "--json"))
    assert (report["items"], report["needed"], report["done"]) == (6, 12, 0)
    assert [r["person"] for r in report["people"]] == sorted(p.username for p in people)
    assert "0 of 12 judgements done" in _run("campaign_status", "cmd_c")


def test_bad_input_fails_clearly_and_writes_nothing(trivial_kind, release, reviewers):
    people = reviewers(2)
    freeze = ["freeze_manifest", "bad", "--release", "cmd_release", "--kind", "audit"]
    with pytest.raises(CommandError, match="not JSON"):
        call_command(*freeze, "--method", "stratified", "--seed", "1", "--params", "{")
    with pytest.raises(CommandError, match="No frozen release"):
        call_command(
            "freeze_manifest", "bad", "--release", "nope", "--kind", "audit",
            "--method", "stratified", "--seed", "1",
        )  # fmt: skip
    with pytest.raises(CommandError, match="target_n"):
        call_command(
            *freeze, "--method", "stratified", "--seed", "1", "--params", '{"target_n": -1}'
        )
    assert not Manifest.objects.filter(name="bad").exists()
    _run(freeze[0], "ok", *freeze[2:], "--method", "stratified", "--seed", "1",
         "--params", '{"target_n": 4, "cover": []}')  # fmt: skip
    names = ",".join(p.username for p in people)
    create = ["campaign_create", "c", "--kind", "trivial", "--manifest", "ok"]
    with pytest.raises(CommandError, match="No user named ghost"):
        call_command(*create, "--people", f"{names},ghost")
    with pytest.raises(CommandError, match="only 2 take part"):
        call_command(*create, "--people", names)  # trivial asks 3 per item
    with pytest.raises(CommandError, match="Unknown campaign kind"):
        call_command(*create[:3], "nope", *create[4:], "--people", names)
    assert not Campaign.objects.exists()
    with pytest.raises(CommandError, match="No campaign named c"):
        call_command("campaign_status", "c")

"""Every name a command or page accepts (runs, judge runs, studies, campaigns, endpoints,
packages, releases, manifests) follows the one name rule (NAME_VALIDATOR), and every download
header is RFC 6266, so that no name can break it."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from annotation.models import Release
from annotation.models.releases import NAME_VALIDATOR, name_check
from review.campaigns.models import Campaign
from review.models import Manifest
from scoring.models import Endpoint, PromptPackage, Run, Study
from scoring.runs import RunError, run_drive, run_predict
from studio.downloads import content_disposition

pytestmark = pytest.mark.django_db

BAD_NAMES = [
    "crlf\r\nX-Injected: 1",
    "trailing-newline\n",
    'quote"d',
    "semi;colon",
    "Upper",
    "spa ce",
    "../up",
    "",
    "x" * 81,
    "名前",
]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_the_rule_refuses_every_bad_name(name):
    with pytest.raises(ValidationError):
        NAME_VALIDATOR(name)
    with pytest.raises(ValidationError, match="run name"):
        name_check(name, what="run name")


def test_the_rule_takes_good_names():
    for name in ("egointent_v1", "demo-audit", "study.official.stand-in-vlm", "x" * 80):
        assert name_check(name) == name


@pytest.mark.parametrize("name", ["crlf\r\nX-Injected: 1", 'say "hi"', "trailing\n"])
def test_predict_and_judge_refuse_a_name_outside_the_rule(
    name, frozen_release, make_endpoint, packages, stand_in
):
    """The finding: ``predict NAME`` and ``judge NAME`` skipped the rule."""
    endpoint = make_endpoint()
    packages("frames-prediction")
    with pytest.raises(CommandError, match=r"run name .*Use lower-case letters"):
        call_command(
            "predict",
            name,
            "--release",
            "r1",
            "--condition",
            "prompt_only",
            "--endpoint",
            endpoint.name,
            "--package",
            "frames-prediction",
        )
    good = run_predict(
        name="good",
        endpoint=endpoint,
        package=packages("frames-prediction"),
        condition="prompt_only",
        release=frozen_release,
    )
    run_drive(run_id=good.pk)
    packages("reference-judge")
    with pytest.raises(CommandError, match=r"run name .*Use lower-case letters"):
        call_command(
            "judge",
            name,
            "--run",
            "good",
            "--kind",
            "reference",
            "--endpoint",
            endpoint.name,
            "--package",
            "reference-judge",
        )
    assert list(Run.objects.values_list("name", flat=True)) == ["good"]


def test_imports_refuse_a_run_name_outside_the_rule(
    frozen_release, make_endpoint, packages, tmp_path
):
    from scoring.judges.imports import judgements_import
    from scoring.runs.imports import predictions_import

    path = tmp_path / "lines.jsonl"
    path.write_text("")
    endpoint = make_endpoint()
    with pytest.raises(RunError, match="run name 'bad\\\\n'"):
        predictions_import(
            name="bad\n",
            path=path,
            endpoint=endpoint,
            package=packages("frames-prediction"),
            condition="prompt_only",
            release=frozen_release,
        )
    with pytest.raises(RunError, match="run name"):
        judgements_import(
            name="Bad",
            path=path,
            kind="reference",
            runs=[],
            endpoint=endpoint,
            package=packages("reference-judge"),
        )
    assert not Run.objects.exists()


def test_the_run_pages_take_names_by_the_same_rule(
    client, admin_user, frozen_release, make_endpoint, packages
):
    endpoint = make_endpoint()
    package = packages("frames-prediction")
    client.force_login(admin_user)
    form = {
        "release": frozen_release.pk,
        "condition": "prompt_only",
        "endpoint": endpoint.pk,
        "package": package.pk,
    }
    for bad in ("trailing\n", "Upper", 'quote"d'):
        page = client.post("/runs/", {**form, "name": bad})
        assert page.status_code == 200 and "Use lower-case letters" in page.content.decode()
    assert not Run.objects.exists()
    # A dot is in the rule (a slug field refused it): the page takes what the command takes.
    assert client.post("/runs/", {**form, "name": "p.v1"}).status_code == 302
    assert Run.objects.filter(name="p.v1").exists()


def test_every_other_named_thing_refuses_a_trailing_line_break(
    frozen_release, make_endpoint, packages, admin_user, rater, tmp_path
):
    """The rule's pattern ended in ``$``, which also matches before a final line break: every
    model and command that used it let ``name\\n`` through."""
    bad = "sneaky\n"
    with pytest.raises(CommandError):
        call_command("freeze_release", bad, "--allow-incomplete")
    with pytest.raises(CommandError):
        call_command("endpoint_add", bad, "--base-url", "http://127.0.0.1:9/v1", "--model", "m")
    args = ["--release", "r1", "--kind", "audit", "--method", "stratified", "--seed", "1"]
    with pytest.raises(CommandError):
        call_command("freeze_manifest", bad, *args, "--params", '{"target_n": 2}')
    call_command("freeze_manifest", "m1", *args, "--params", '{"target_n": 2}')
    with pytest.raises(CommandError):
        call_command(
            "campaign_create",
            bad,
            "--kind",
            "audit",
            "--manifest",
            "m1",
            "--people",
            rater.username,
        )
    make_endpoint()
    packages("frames-prediction")
    with pytest.raises(CommandError):
        call_command(
            "study_create",
            bad,
            "--template",
            "evidence",
            "--release",
            "r1",
            "--endpoint",
            "stand-in-vlm",
            "--package",
            "frames-prediction",
            "--judge-endpoint",
            "stand-in-vlm",
        )
    from scoring.packages import BUILTIN_DIR

    raw = json.loads((BUILTIN_DIR / "frames-prediction.json").read_text())
    raw["name"] = bad
    package_file = tmp_path / "package.json"
    package_file.write_text(json.dumps(raw))
    with pytest.raises(CommandError):
        call_command("package_add", str(package_file))
    assert not Release.objects.filter(name=bad).exists()
    assert not Manifest.objects.filter(name=bad).exists()
    assert not Campaign.objects.exists()
    assert not Endpoint.objects.filter(name=bad).exists()
    assert not Study.objects.exists()
    assert not PromptPackage.objects.filter(name=bad).exists()


@pytest.mark.parametrize(
    ("filename", "expected"),
    [
        ("run.jsonl", "attachment; filename=\"run.jsonl\"; filename*=UTF-8''run.jsonl"),
        (
            'a "quoted"; name\r\nX-Evil: 1.csv',
            'attachment; filename="a__quoted___name__X-Evil__1.csv"; '
            "filename*=UTF-8''a%20%22quoted%22%3B%20name%0D%0AX-Evil%3A%201.csv",
        ),
        ("été.json", "attachment; filename=\"_t_.json\"; filename*=UTF-8''%C3%A9t%C3%A9.json"),
    ],
)
def test_download_headers_are_rfc_6266(filename, expected):
    assert content_disposition(filename) == expected


def test_a_legacy_run_with_a_bad_name_still_downloads(
    client, admin_user, frozen_release, make_endpoint, packages
):
    """A run named before the rule held (created here around it) no longer breaks its export:
    the header carries the name percent-encoded; a CRLF in it answered 500 before."""
    run = run_predict(
        name="fine",
        endpoint=make_endpoint(),
        package=packages("frames-prediction"),
        condition="prompt_only",
        release=frozen_release,
    )
    Run.objects.filter(pk=run.pk).update(name='old "run"\r\nX-Evil: 1')
    client.force_login(admin_user)
    response = client.get(f"/runs/{run.pk}/export.jsonl")
    assert response.status_code == 200
    header = response["Content-Disposition"]
    assert "\r" not in header and "\n" not in header and header.count('"') == 2
    assert header.endswith("filename*=UTF-8''old%20%22run%22%0D%0AX-Evil%3A%201.jsonl")
    assert response["X-Content-Type-Options"] == "nosniff"

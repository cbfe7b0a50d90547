"""Every import command reads its file with the one JSON Lines reader (studio/jsonl.py): a
duplicate key, a bad byte, a NUL or a lone surrogate is refused naming its line, at most 100
problems are listed and then a count of the rest, and nothing is written."""

from __future__ import annotations

import io
import re

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command

from review.campaigns.models import Campaign
from review.models import Manifest
from scoring.runs import run_predict

pytestmark = pytest.mark.django_db

HEAD = [
    b'{"rater": "x", "step": "y", "rater": "z"}',  # line 1: a key twice (the last won)
    b'{"rater": "caf\xe9"}',  # line 2: Latin-1, not UTF-8
    b'{"comment": "a\\u0000b"}',  # line 3: NUL
    b'{"note": "\\ud800"}',  # line 4: a lone surrogate
    b'{"score": NaN}',  # line 5: not a JSON number
]
BAD_LINES = 200  # then this many lines that are not JSON: 205 problems in all


def _file(tmp_path, bad_lines: int = BAD_LINES):
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"\n".join([*HEAD, *[b"{not json"] * bad_lines]) + b"\n")
    return path


# Rows none of the commands may write when they refuse a file.
WRITTEN = [
    "annotation.MicroStep",
    "review.QaGroupSet",
    "review.Submission",
    "review.Adjudication",
    "scoring.Run",
    "scoring.Judgement",
]


def _counts() -> dict[str, int]:
    return {label: apps.get_model(label).objects.count() for label in WRITTEN}


@pytest.fixture
def targets(frozen_release, make_endpoint, packages, admin_user):
    """Something for every command to import into: a manifest, one campaign of each kind, an
    endpoint and a prediction run (refusing files never needs more)."""
    call_command(
        "freeze_manifest", "m", "--release", "r1", "--kind", "audit", "--method", "stratified",
        "--seed", "1", "--params", '{"target_n": 2}', stdout=io.StringIO(),
    )  # fmt: skip
    manifest = Manifest.objects.get(name="m")
    for kind in ("audit", "boundary", "human_baseline", "judge_validation"):
        Campaign.objects.create(name=f"c-{kind}", kind=kind, manifest=manifest, per_item=1, seed=0)
    endpoint = make_endpoint()
    packages("reference-judge")
    run_predict(
        name="p",
        endpoint=endpoint,
        package=packages("frames-prediction"),
        condition="prompt_only",
        release=frozen_release,
    )


COMMANDS = {
    "import_steps": lambda f: ["import_steps", f],
    "import_qa": lambda f: ["import_qa", f, "--name", "qa-in"],
    "audit_import_decisions": lambda f: ["audit_import_decisions", "c-audit", f],
    "boundary_import_decisions": lambda f: ["boundary_import_decisions", "c-boundary", f],
    "baseline_import_responses": lambda f: ["baseline_import_responses", "c-human_baseline", f],
    "judge_validation_import_ratings": lambda f: [
        "judge_validation_import_ratings",
        "c-judge_validation",
        f,
    ],
    "import_predictions": lambda f: [
        "import_predictions",
        "in",
        f,
        "--release",
        "r1",
        "--condition",
        "prompt_only",
        "--endpoint",
        "stand-in-vlm",
        "--package",
        "frames-prediction",
    ],
    "import_judgements": lambda f: [
        "import_judgements",
        "in",
        f,
        "--run",
        "p",
        "--endpoint",
        "stand-in-vlm",
    ],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_import_refuses_bad_lines_by_number_and_writes_nothing(command, targets, tmp_path):
    before = _counts()
    err = io.StringIO()
    with pytest.raises(CommandError) as refused:
        call_command(*COMMANDS[command](str(_file(tmp_path))), stderr=err, stdout=io.StringIO())
    said = err.getvalue() + str(refused.value)
    assert "line 1: the key 'rater' appears twice in one object" in said
    assert "line 2: not UTF-8 (byte 0xe9 at byte 15)" in said
    assert "line 3: comment holds a NUL character (U+0000) at character 2" in said
    assert "line 4: note holds a lone surrogate (U+D800) at character 1" in said
    assert "line 5: NaN is not a JSON number" in said
    assert "line 6: not JSON" in said
    assert len(set(re.findall(r"line (\d+):", said))) == 100  # the first 100 ...
    assert "… and 105 more problem(s)" in said  # ... then a count of the rest
    assert _counts() == before


def test_a_million_bad_steps_print_a_hundred_lines(targets, tmp_path):
    """The finding: import_steps wrote one error line per bad line (183 MB for a 1,000,000-line
    file). Now the output stays 101 lines whatever the file."""
    err = io.StringIO()
    with pytest.raises(CommandError, match="100,005 problem"):
        call_command("import_steps", str(_file(tmp_path, bad_lines=100_000)), stderr=err)
    printed = err.getvalue().splitlines()
    assert len(printed) == 101 and printed[-1].endswith("… and 99,905 more problem(s)")


def test_a_file_whose_lines_are_good_json_but_repeat_a_key_is_refused(
    frozen_release, make_endpoint, packages, tmp_path
):
    """Duplicate keys in an otherwise good prediction line: the last no longer wins."""
    uid = str(frozen_release.steps.first().sample_id)
    path = tmp_path / "p.jsonl"
    path.write_text(
        f'{{"sample": "{uid}", "outcome": "ok", "outcome": "refusal", "prediction": null}}\n'
    )
    make_endpoint()
    packages("frames-prediction")
    with pytest.raises(CommandError, match="line 1: the key 'outcome' appears twice"):
        call_command(
            "import_predictions", "dup", str(path), "--release", "r1", "--condition",
            "prompt_only", "--endpoint", "stand-in-vlm", "--package", "frames-prediction",
        )  # fmt: skip

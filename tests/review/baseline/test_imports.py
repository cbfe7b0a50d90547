"""baseline_import_responses / baseline_export_responses: all or nothing with line numbers;
the export reads back unchanged."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from review.campaigns.models import Assignment, Submission

pytestmark = pytest.mark.django_db


def _line(rater, step, **dims):
    line = {"rater": rater.username, "step": str(step)}
    for name in ("local", "procedural", "next"):
        line[name] = dims.get(
            name, {"answerable": True, "answers": [f"{name} answer"], "confidence": 3}
        )
    return line


def _write(path, lines):
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


def test_import_then_export_round_trips(world, tmp_path, capsys):
    uids = [s.uid for s in world.steps]
    lines = [_line(r, uid) for r in world.raters for uid in uids[:2]]
    lines[0]["next"] = {"answerable": True, "answers": ["a", "b", "c"], "confidence": 5}
    lines[1]["local"] = {"answerable": False, "answers": [], "confidence": 2}
    lines.append({"rater": world.raters[0].username, "step": str(uids[2]), "broken": True,
                  "note": "no picture"})  # fmt: skip
    lines[2]["seconds"] = 12.5
    path = _write(tmp_path / "in.jsonl", lines)
    call_command("baseline_import_responses", world.campaign.name, str(path))
    assert "Imported 7 response(s) (1 broken-item flag(s))" in capsys.readouterr().out
    assert Assignment.objects.filter(campaign=world.campaign, state="done").count() == 7
    out = tmp_path / "out.jsonl"
    call_command("baseline_export_responses", world.campaign.name, "-o", str(out))
    exported = [json.loads(x) for x in out.read_text().splitlines()]
    key = lambda ln: (ln["step"], ln["rater"])  # noqa: E731
    assert sorted(exported, key=key) == exported
    assert sorted(exported, key=key) == sorted(lines, key=key)
    # importing the export again supersedes, both kept
    call_command("baseline_import_responses", world.campaign.name, str(out))
    assert Submission.objects.filter(campaign=world.campaign).count() == 14
    assert Submission.objects.filter(campaign=world.campaign, supersedes__isnull=False).count() == 7


def test_any_bad_line_refuses_the_whole_file_with_every_line_named(world, tmp_path, auditor):
    uid = world.steps[0].uid
    good = _line(world.raters[0], uid)
    lines = [
        good,
        {**_line(world.raters[1], uid), "local": {"answerable": True, "answers": [],
                                                  "confidence": 3}},
        _line(auditor, uid),
        {**_line(world.raters[2], uid), "colour": "red"},
        _line(world.raters[0], uid),
        {"rater": world.raters[1].username, "step": "00000000-0000-0000-0000-000000000000"},
        {"rater": world.raters[2].username, "step": str(world.steps[1].uid), "broken": True,
         "local": {"answerable": False, "answers": [], "confidence": 1}},
    ]  # fmt: skip
    path = _write(tmp_path / "bad.jsonl", lines)
    with path.open("a") as handle:
        handle.write("{not json\n")
    with pytest.raises(CommandError) as caught:
        call_command("baseline_import_responses", world.campaign.name, str(path))
    text = str(caught.value)
    for number in (2, 3, 4, 5, 6, 7, 8):
        assert f"line {number}:" in text, text
    assert "line 1:" not in text
    assert not Submission.objects.filter(campaign=world.campaign).exists()


def test_a_fourth_rater_on_a_step_is_refused(world, tmp_path, django_user_model, admin_user):
    from tests.conftest import _user

    extra = _user(django_user_model, "rory", "rater")
    world.campaign.people.add(extra)
    from review.campaigns.models import ItemOrder
    from review.campaigns.order import order_key

    for item in world.campaign.items.select_related("sample"):
        ItemOrder.objects.create(campaign=world.campaign, person=extra, item=item,
                                 key=order_key(extra.pk, item.sample.sample_id, 1))  # fmt: skip
    uid = world.steps[0].uid
    lines = [_line(r, uid) for r in [*world.raters, extra]]
    path = _write(tmp_path / "four.jsonl", lines)
    with pytest.raises(CommandError, match="more than 3 raters"):
        call_command("baseline_import_responses", world.campaign.name, str(path))

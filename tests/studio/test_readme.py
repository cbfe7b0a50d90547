"""The README's everyday commands are checked against a running instance by .ci/smoke
(.ci/readme_commands.py); here, without one, that the check finds them and that every command
they name exists."""

import importlib.util
import re

from django.core.management import get_commands

from tests.conftest import ROOT


def _checker():
    spec = importlib.util.spec_from_file_location(
        "readme_commands", ROOT / ".ci/readme_commands.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_everyday_command_block_is_found_with_its_admin_step():
    checker = _checker()
    found = checker.blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(found) >= 4
    steps = [step for step, _ in found if step]
    assert steps and all(checker.FREEZE.fullmatch(step) for step in steps)
    code = "\n".join(code for _, code in found)
    # Real user names and no placeholders the reader must replace.
    assert "NAME" not in code and "PATH" not in code and "demo-admin" in code
    # The release is frozen before its steps are rendered.
    assert code.index("freeze_release demo_v1") < code.index("step_render_jobs --release demo_v1")


def test_every_command_the_readme_names_exists():
    code = "\n".join(code for _, code in _checker().blocks((ROOT / "README.md").read_text()))
    named = set(re.findall(r"manage\.py (\w+)", code))
    assert named and named <= set(get_commands()), named - set(get_commands())

"""A command or a page imports only what it uses (docs/architecture.md, "Start-up").

``manage.py help``, ``manage.py check`` and a request for the home page, each in a fresh
process, must not load the heavy libraries that only some computations need: scipy (statistics
and the triplet solver), onnxruntime and tokenizers (the similarity model), pyarrow (Parquet
bundles), pandas and vl-convert (chart images); nor, for the two commands, Celery and the HTTP
client of model calls. Their speed and memory against a bare Django are measured by
``benchmarks/startup.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

HEAVY = ["scipy", "onnxruntime", "tokenizers", "pyarrow", "pandas", "vl_convert"]
NOT_FOR_COMMANDS = [*HEAVY, "celery", "kombu", "httpx2"]

# Runs manage.py as ``python manage.py ARGS`` would (same __main__, same argv), then prints the
# top-level packages that were imported.
AS_MANAGE_PY = """
import json, runpy, sys
sys.argv = ["manage.py", *sys.argv[1:]]
try:
    runpy.run_path("manage.py", run_name="__main__")
except SystemExit as exc:
    assert not exc.code, exc.code
print("\\nLOADED " + json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""

HOME_PAGE = """
import json, os, sys
import django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
django.setup()
from django.contrib.auth import get_user_model
from django.test import Client

client = Client(HTTP_HOST="127.0.0.1")
client.force_login(get_user_model().objects.get(username=sys.argv[1]))
answer = client.get("/")
assert answer.status_code == 200, answer.status_code
assert b"Intent Studio" in answer.content
print("\\nLOADED " + json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


def _loaded(script: str, *args: str, env: dict | None = None) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(x for x in reversed(done.stdout.splitlines()) if x.startswith("LOADED "))
    return set(json.loads(line.removeprefix("LOADED ")))


@pytest.mark.parametrize("command", ["help", "check"])
def test_a_command_loads_no_heavy_library(command, worker_env):
    loaded = _loaded(AS_MANAGE_PY, command, env=worker_env)
    assert "django" in loaded and "studio" in loaded  # it did set the project up
    assert not loaded & set(NOT_FOR_COMMANDS), sorted(loaded & set(NOT_FOR_COMMANDS))


def test_the_home_page_loads_no_heavy_library(worker_env, django_user_model):
    from django.contrib.auth.models import Group

    from studio.roles import ROLES

    user = django_user_model.objects.create_user("startup-everyone", password="x")
    user.is_staff = user.is_superuser = True  # every card and every admin link
    user.save()
    for role in ROLES:
        user.groups.add(Group.objects.get_or_create(name=role)[0])
    loaded = _loaded(HOME_PAGE, user.username, env=worker_env)
    assert "review" in loaded and "scoring" in loaded  # the whole URL configuration was loaded
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_the_check_sees_a_heavy_import_when_there_is_one(worker_env):
    """The check can fail: a module that imports scipy at the top, loaded at start-up, is seen."""
    script = AS_MANAGE_PY.replace("runpy.run_path", "import scipy.stats; runpy.run_path")
    assert "scipy" in _loaded(script, "help", env=worker_env)

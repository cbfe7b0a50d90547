"""The import rules of docs/architecture.md that import-linter cannot say (its contracts are in
.importlinter, run by `make lint`): no module uses another package's private (``_``) names.

import-linter's ``private_modules`` contract covers private *modules* (``scoring.stats._checks``);
a private *name* of a public module (``from scoring.runs.services import _same``) is a line it
cannot see, so this test reads every module of the apps with ``ast``. A private name of module
``a.b.c`` (or of package ``a.b``) may be used only inside package ``a.b``: by its own modules and
their subpackages.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

APPS = ("studio", "media", "annotation", "review", "scoring")


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_package(name: str, root: Path) -> bool:
    return (root.joinpath(*name.split(".")) / "__init__.py").is_file()


def _is_module(name: str, root: Path) -> bool:
    return _is_package(name, root) or root.joinpath(*name.split(".")).with_suffix(".py").is_file()


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _owner_package(module: str, root: Path) -> str:
    """The package whose private names a module's names are: the package itself, or the
    package a plain module is in."""
    return module if _is_package(module, root) else module.rpartition(".")[0]


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def private_name_uses(root: Path, apps=APPS) -> list[str]:
    """Every use of another package's private name in the apps' modules, as readable lines."""
    found = []
    for path in sorted(p for app in apps for p in (root / app).rglob("*.py")):
        importer = _module_name(path, root)
        importer_is_package = path.name == "__init__.py"
        where = importer if importer_is_package else importer.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        aliases: dict[str, str] = {}  # a local name bound to a project module

        def check(owner_module: str, name: str, line: int, _where=where, _path=path) -> None:
            owner = _owner_package(owner_module, root)
            if _private(name) and not _inside(_where, owner):
                found.append(f"{_path.relative_to(root)}:{line} uses {owner_module}.{name}")

        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _absolute(node, importer, importer_is_package)
                if source.split(".")[0] not in apps:
                    continue
                for alias in node.names:
                    if _is_module(f"{source}.{alias.name}", root):
                        aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
                    check(source, alias.name, node.lineno)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] not in apps:
                        continue
                    if alias.asname:
                        aliases[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        aliases[top] = top
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load):
                continue
            chain = [node.attr]
            value = node.value
            while isinstance(value, ast.Attribute):
                chain.insert(0, value.attr)
                value = value.value
            if not isinstance(value, ast.Name) or value.id not in aliases:
                continue
            module = aliases[value.id]
            *path_parts, name = chain
            for part in path_parts:
                if not _is_module(f"{module}.{part}", root):
                    break
                module = f"{module}.{part}"
            else:
                check(module, name, node.lineno)
    return sorted(set(found))


def test_no_module_uses_another_packages_private_names():
    assert private_name_uses(ROOT) == []


def test_the_check_sees_a_private_name_taken_from_another_package(tmp_path):
    """The rule can fail: a use from a sibling package is found, a use inside the package is
    not, in both spellings (``from … import _x`` and ``module._x``)."""
    for name in ("scoring", "scoring/runs", "scoring/judges"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("")
    (tmp_path / "scoring/runs/services.py").write_text("def _same():\n    pass\n")
    (tmp_path / "scoring/runs/execute.py").write_text(
        "from scoring.runs.services import _same\nfrom . import services\nservices._same()\n"
    )
    (tmp_path / "scoring/judges/services.py").write_text(
        "from scoring.runs.services import _same\n"
        "from scoring.runs import services as runs\n"
        "import scoring.runs.services\n"
        "runs._same()\n"
        "scoring.runs.services._same()\n"
    )
    assert private_name_uses(tmp_path, apps=("scoring",)) == [
        "scoring/judges/services.py:1 uses scoring.runs.services._same",
        "scoring/judges/services.py:4 uses scoring.runs.services._same",
        "scoring/judges/services.py:5 uses scoring.runs.services._same",
    ]


LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


@pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter is a dev dependency")
def test_the_contracts_break_on_an_upward_import(tmp_path):
    """The contracts can fail: in a copy of the apps that keeps them, media importing scoring
    breaks the layers and scoring.stats importing Django breaks the pure-numpy rule."""
    for app in APPS:
        shutil.copytree(ROOT / app, tmp_path / app, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / ".importlinter").write_text((ROOT / ".importlinter").read_text())
    kept = subprocess.run(
        [str(LINT_IMPORTS)], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert kept.returncode == 0, kept.stdout + kept.stderr
    with (tmp_path / "media" / "windows.py").open("a") as f:
        f.write("\nimport scoring.runs  # noqa\n")
    with (tmp_path / "scoring" / "stats" / "intervals.py").open("a") as f:
        f.write("\nimport django.db  # noqa\n")
    broken = subprocess.run(
        [str(LINT_IMPORTS)], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "Contracts: 2 kept, 2 broken." in broken.stdout, broken.stdout
    assert "media.windows -> scoring.runs" in broken.stdout, broken.stdout
    assert "scoring.stats.intervals -> django" in broken.stdout, broken.stdout


def module_cycles(root: Path, apps=APPS) -> list[tuple[str, str]]:
    """Every pair of the apps' modules that import each other, directly or through others,
    counting imports inside functions too (a deferred import is still an arrow). Uses grimp,
    the graph import-linter builds its contracts on."""
    import grimp

    sys.path.insert(0, str(root))
    try:
        graph = grimp.build_graph(*apps, cache_dir=None)
    finally:
        sys.path.remove(str(root))
    cycles = set()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            if graph.find_shortest_chain(importer=imported, imported=module):
                cycles.add(tuple(sorted((module, imported))))
    return sorted(cycles)


@pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter (and grimp) are dev deps")
def test_no_two_modules_import_each_other():
    """Stricter than the contract's top-level packages: no circle between any two modules,
    inside a package too (``scoring.runs.execute`` and ``scoring.runs.services``)."""
    assert module_cycles(ROOT) == []


@pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter (and grimp) are dev deps")
def test_the_cycle_check_sees_a_deferred_import_back(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "services.py").write_text("def f():\n    from pkg.execute import g\n")
    (tmp_path / "pkg" / "execute.py").write_text("from pkg.services import f\n")
    (tmp_path / "pkg" / "other.py").write_text("from pkg.services import f\n")
    assert module_cycles(tmp_path, apps=("pkg",)) == [("pkg.execute", "pkg.services")]

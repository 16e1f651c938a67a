"""The layout rules of docs/contributing.md, checked on the tree.

Every unit of paddle_ir sits in an import-linter tier (so `make lint` checks it),
every package is installed, the root holds few loose modules, and no file is named
for how or when it was written.
"""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]
# The repository keeps ops/ and executor/ at its top level; they install as
# paddle_ir.ops and paddle_ir.executor (pyproject's package-dir).
SOURCE_DIRS = {"paddle_ir": ROOT / "paddle_ir", "paddle_ir.ops": ROOT / "ops",
               "paddle_ir.executor": ROOT / "executor"}
# Words that say how or when a file was written, not what it holds.
MADE_HOW = re.compile(r"_more|extra_|misc|_extras|(^|_)new(_|$)|mutation_gaps|layersa")


def _pyproject() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def _downwards_contract() -> list[str]:
    contracts = _pyproject()["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["name"] == "paddle_ir imports downwards only"]
    return layers


def _units_on_disk() -> set[str]:
    """The direct children of paddle_ir as installed: packages and modules."""
    units = {"ops", "executor"}
    for path in (ROOT / "paddle_ir").iterdir():
        if path.is_dir() and (path / "__init__.py").exists():
            units.add(path.name)
        elif path.suffix == ".py" and path.stem not in ("__init__", "__main__"):
            units.add(path.stem)
    return units


def _packages_on_disk() -> set[str]:
    packages = set()
    for name, base in SOURCE_DIRS.items():
        for init in base.rglob("__init__.py"):
            rel = init.parent.relative_to(base).parts
            packages.add(".".join((name, *rel)))
    return packages


def test_every_unit_of_paddle_ir_sits_in_exactly_one_tier():
    named = [unit.strip() for line in _downwards_contract()
             for unit in re.split(r"[|:]", line)]
    assert len(named) == len(set(named)), f"a unit is named in two tiers: {sorted(named)}"
    on_disk = _units_on_disk()
    assert on_disk - set(named) == set(), (
        "these parts of paddle_ir sit in no tier of the contract 'paddle_ir imports downwards "
        "only' (pyproject.toml): add each to the tier line it belongs to "
        "(docs/contributing.md, 'The tiers')")
    assert set(named) - on_disk == set(), "the contract names units that do not exist"


def test_every_package_is_installed():
    listed = set(_pyproject()["tool"]["setuptools"]["packages"])
    missing = _packages_on_disk() - listed
    assert missing == set(), f"add to pyproject's [tool.setuptools] packages: {missing}"
    assert listed - _packages_on_disk() == set(), "pyproject lists packages that do not exist"


def test_the_root_of_paddle_ir_holds_few_loose_modules():
    loose = [p.name for p in (ROOT / "paddle_ir").glob("*.py")]
    assert len(loose) <= 10, f"group these by role into packages: {sorted(loose)}"


def test_the_tests_root_holds_only_the_shared_harness():
    assert len(list((ROOT / "tests").glob("*.py"))) <= 8


def test_no_file_is_named_for_how_it_was_written():
    offenders = []
    for top in ("paddle_ir", "ops", "executor", "tests"):
        for path in (ROOT / top).rglob("*.py"):
            if MADE_HOW.search(path.stem):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == [], "name these files for what they hold (docs/contributing.md)"


def test_imports_below_code_only_in_the_facade():
    # paddle_ir/__init__.py pauses the garbage collector around its imports (bench B10);
    # anywhere else an import below code is two modules patching each other.
    offenders = []
    for top in ("paddle_ir", "ops", "executor"):
        for path in (ROOT / top).rglob("*.py"):
            if path == ROOT / "paddle_ir" / "__init__.py" or "proto" in path.parts:
                continue
            if "noqa: E402" in path.read_text():
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []

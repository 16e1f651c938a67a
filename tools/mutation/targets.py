"""Which tests run against which mutant: the test files that execute its line.

The coverage map (coverage_map.py, `make mutation-map`) says, for each mutated module and
each of its lines, which test files executed the line and in how many of their tests, and
how long each file took. A mutant runs the files that execute its line, ordered so that the
likeliest killers come first: the module's own test file (tests/ mirrors the source tree),
then the others by tests reaching the line per second of run time. With `pytest -x` the
run stops at the first failure, so a caught mutant usually costs one file; a file list is
cut once its recorded time passes `budget` seconds, so a survivor costs a bounded run.

A line that ran only while the tests were being imported (a module body: constants,
defaults, decorators, class bodies) could change anything the module does: its mutants run
every file that executes the module, ordered the same way. A line no test executes gets the
module's own test file only, and the report says no test reached it.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAP = ROOT / "out" / "mutation" / "coverage-map.json"
IMPORT_CONTEXT = ""  # coverage's context while no test runs: collection, i.e. imports
# Seconds of recorded test time (taken under coverage) one mutant runs at most; its first
# file always runs. The killers come first, so a larger budget mostly lengthens survivors.
BUDGET = 20.0

# What `make mutation` runs when no module is named: the core modules.
DEFAULT_MODULES = (
    "ops/registry.py", "ops/context.py", "ops/sequence_ops/sequence_pool.py",
    "ops/optimizers/sgd.py", "ops/optimizers/adam.py",
    "paddle_ir/core/lod_tensor.py", "paddle_ir/core/selected_rows.py",
    "paddle_ir/core/tensor_io.py", "paddle_ir/core/csr.py",
    "executor/runner.py", "executor/executor.py", "executor/plan.py",
    "executor/dispatch.py", "executor/steps.py",
)


def load_map(path: Path = MAP) -> dict:
    if not path.exists():
        raise SystemExit(f"{path.relative_to(ROOT)} is missing: run `make mutation-map` (one run "
                         f"of the test suite under coverage) first")
    return json.loads(path.read_text(encoding="utf-8"))


def own_tests(module: str) -> list[str]:
    """The module's own test file, where tests/ mirrors the source tree (paddle_ir/core/x.py
    and core/x.py -> tests/core/test_x.py), if it exists."""
    parts = Path(module).parts
    parts = parts[1:] if parts[0] == "paddle_ir" else parts
    path = Path("tests", *parts[:-1], "test_" + parts[-1])
    return [str(path)] if (ROOT / path).is_file() else []


class LineTests:
    """One module's lines -> test files, from the coverage map."""

    def __init__(self, module: str, cmap: dict) -> None:
        if module not in cmap["modules"]:
            raise SystemExit(f"{module} is not in the coverage map: run `make mutation-map "
                             f"MUTATION_MODULES='{module}'` (or add it to coverage_map.MAPPED)")
        self.module = module
        self.seconds: dict[str, float] = cmap["seconds"]
        failed = set(cmap.get("failed", ()))
        self.lines: dict[int, dict[str, int]] = {
            int(k): {f: n for f, n in files.items() if f not in failed}
            for k, files in cmap["modules"][module].items()}
        # every file that executes the module, with the most tests reaching any one line
        self.reach: dict[str, int] = {}
        for files in self.lines.values():
            for f, n in files.items():
                if f != IMPORT_CONTEXT:
                    self.reach[f] = max(n, self.reach.get(f, 0))
        self.own = own_tests(module)

    def executed(self, line: int) -> bool:
        """Whether some test executed the line (not only the import of the tests)."""
        return any(f != IMPORT_CONTEXT for f in self.lines.get(line, {}))

    def at_import(self, line: int) -> bool:
        return IMPORT_CONTEXT in self.lines.get(line, {})

    def tests_for(self, line: int, budget: float = BUDGET) -> list[str]:
        """The test files a mutant at `line` runs, likeliest killers first, cut at `budget`."""
        files = self.lines.get(line, {})
        hits = {f: n for f, n in files.items() if f != IMPORT_CONTEXT}
        if not hits and IMPORT_CONTEXT in files:
            hits = dict(self.reach)
        ranked = sorted(hits, key=lambda f: (-hits[f] / max(self.seconds.get(f, 1.0), 0.05), f))
        out, spent = [], 0.0
        for f in self.own + [f for f in ranked if f not in self.own]:
            if out and spent + self.seconds.get(f, 1.0) > budget:
                break
            out.append(f)
            spent += self.seconds.get(f, 1.0)
        return out

    def all_tests(self) -> list[str]:
        return self.own + sorted(f for f in self.reach if f not in self.own)


def unmapped_test_files(cmap: dict) -> list[str]:
    """Test files on disk that the map has not seen (added since it was made)."""
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py")
                  if str(p.relative_to(ROOT)) not in cmap["seconds"])


def expand(modules: list[str]) -> list[str]:
    """Module arguments (paths or globs, relative to the root) as existing module paths."""
    out: list[str] = []
    for m in modules:
        hits = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob(m) if p.name != "__init__.py")
        if not hits:
            raise SystemExit(f"no module matches {m!r}")
        out += [h for h in hits if h not in out]
    return out

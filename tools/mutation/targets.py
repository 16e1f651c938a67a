"""Which tests run against which mutant: the test files that execute its line.

The coverage map (coverage_map.py, `make mutation-map`) says, for each mutated module and
each of its lines, which test files executed the line and in how many of their tests, and
how long each file took. A mutant runs the files that execute its line, ordered so that the
likeliest killers come first: the module's own test file (tests/ mirrors the source tree),
then the others taken in turn from three rankings:

- specific to the function: the files that execute the rarest lines of the top-level
  function (or method) holding the mutated line. A line many files run (a loop every op
  goes through) is mostly run for nothing; the files that also reach the branches few
  files reach (a sparse output converted back) are the ones whose result depends on it;
- specific to the module: the same over every line of the module (a helper every op calls
  is tested by the files that reach its callers' rare branches);
- tests per second: the files where most tests reach the line, per second of run time.

A file's specificity is the sum, over the lines it executes, of 1 / (files executing that
line): a line every file runs adds almost nothing, a line only it runs adds 1. With
`pytest -x` the run stops at the first failure, so a caught mutant usually costs one file;
the list holds the files that fit in `budget` seconds of recorded time (a file that does
not fit is passed over for a shorter one), so a survivor costs a bounded run. A line many
files execute gets a larger budget (`budget_for`), since a fixed one covers a smaller
share of its files.

A line that ran only while the tests were being imported (a module body: constants,
defaults, decorators, class bodies) could change anything the module does: its mutants run
every file that executes the module, ordered the same way. A line no test executes gets the
module's own test file only, and the report says no test reached it.
"""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAP = ROOT / "out" / "mutation" / "coverage-map.json"
IMPORT_CONTEXT = ""  # coverage's context while no test runs: collection, i.e. imports
# Seconds of recorded test time (taken under coverage) one mutant runs at most; its first
# file always runs. The killers come first, so a larger budget mostly lengthens survivors.
BUDGET = 20.0
# A line executed by more than BUDGET_FILES files gets BUDGET x log2(files) / log2(BUDGET_FILES),
# at most BUDGET_SCALE_MAX x BUDGET: with 20 s, 40 s for 256 files or more.
BUDGET_FILES = 16
BUDGET_SCALE_MAX = 2.0

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


def top_level_spans(source: str) -> list[tuple[int, int]]:
    """(first, last) line of each top-level function and each method of a top-level class;
    a nested function belongs to the function around it."""
    spans = []
    for node in ast.parse(source).body:
        members = node.body if isinstance(node, ast.ClassDef) else [node]
        spans += [(f.lineno, f.end_lineno) for f in members
                  if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)]
    return spans


def budget_for(files: int, budget: float = BUDGET) -> float:
    """The budget of a line `files` test files execute."""
    if files <= BUDGET_FILES:
        return budget
    return budget * min(BUDGET_SCALE_MAX, math.log2(files) / math.log2(BUDGET_FILES))


class LineTests:
    """One module's lines -> test files, from the coverage map.

    `source`: the module's text, for its functions' spans (default: read from the tree; the
    run checks it is the text the map was taken on)."""

    def __init__(self, module: str, cmap: dict, source: str | None = None) -> None:
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
        if source is None:
            source = (ROOT / module).read_text(encoding="utf-8")
        self.spans = top_level_spans(source)
        # each line's weight: 1 / the files executing it (0 for lines no test runs)
        self.weight = {k: 1.0 / len(fs) for k, fs in self._executing().items() if fs}

    def _executing(self) -> dict[int, list[str]]:
        return {k: [f for f in files if f != IMPORT_CONTEXT] for k, files in self.lines.items()}

    def executed(self, line: int) -> bool:
        """Whether some test executed the line (not only the import of the tests)."""
        return any(f != IMPORT_CONTEXT for f in self.lines.get(line, {}))

    def at_import(self, line: int) -> bool:
        return IMPORT_CONTEXT in self.lines.get(line, {})

    def span_of(self, line: int) -> tuple[int, int] | None:
        """The top-level function or method holding `line`, if any."""
        return next((s for s in self.spans if s[0] <= line <= s[1]), None)

    def specificity(self, span: tuple[int, int] | None = None) -> dict[str, float]:
        """Each file's sum of line weights over the lines it executes (within `span`)."""
        out: dict[str, float] = {}
        for k, files in self.lines.items():
            if k not in self.weight or (span is not None and not span[0] <= k <= span[1]):
                continue
            for f in files:
                if f != IMPORT_CONTEXT:
                    out[f] = out.get(f, 0.0) + self.weight[k]
        return out

    def rankings(self, line: int, hits: dict[str, int]) -> list[list[str]]:
        """The three orders of `hits` (file -> tests reaching the line) tests_for takes
        files from in turn: function-specific, module-specific, tests per second; each
        breaks ties by tests per second, then by name."""
        per_second = {f: hits[f] / max(self.seconds.get(f, 1.0), 0.05) for f in hits}
        orders = []
        span = self.span_of(line)
        for spec in ((self.specificity(span) if span else {}), self.specificity(), {}):
            # rounded: sums of the same weights in another order differ in the last bits
            orders.append(sorted(hits, key=lambda f, s=spec: (-round(s.get(f, 0.0), 9),
                                                              -per_second[f], f)))
        return orders

    def tests_for(self, line: int, budget: float = BUDGET) -> list[str]:
        """The test files a mutant at `line` runs, likeliest killers first: the own test
        file, then one file from each ranking in turn, each the next in its ranking that
        fits in the budget (scaled by `budget_for`; the first file always runs)."""
        files = self.lines.get(line, {})
        hits = {f: n for f, n in files.items() if f != IMPORT_CONTEXT}
        if not hits and IMPORT_CONTEXT in files:
            hits = dict(self.reach)
        budget = budget_for(len(hits), budget)
        out = list(self.own)
        spent = sum(self.seconds.get(f, 1.0) for f in out)
        orders = self.rankings(line, {f: n for f, n in hits.items() if f not in self.own})
        place = [0] * len(orders)
        while True:
            took = False
            for i, order in enumerate(orders):
                while place[i] < len(order) and (
                        order[place[i]] in out
                        or (out and spent + self.seconds.get(order[place[i]], 1.0) > budget)):
                    place[i] += 1
                if place[i] < len(order):
                    out.append(order[place[i]])
                    spent += self.seconds.get(order[place[i]], 1.0)
                    took = True
            if not took:
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

"""Which test files execute which lines of the mutated modules: `make mutation-map`.

Runs the whole test suite once under coverage.py (its C tracer), with the pytest node id of
the running test as coverage's dynamic context, measuring only the modules mutation testing
mutates. The result, out/mutation/coverage-map.json, says for each module and each of its
lines which test files executed that line and in how many of their tests, and how long each
test file took. run.py picks each mutant's tests from it (targets.py): the test files that
execute the mutated line, likeliest killers first. Lines run only while the tests were being
imported (module bodies: constants, defaults, decorators) are kept under the context "",
and a mutant there runs every test file that executes the module.

The map is a cache: remake it after changing a mapped module (run.py refuses a module
whose source differs from the map's) or adding test files (run.py lists the files the map
has not seen; `map --update -- FILE ...` maps just those into it). Taking it costs one run
of the suite under coverage, about 13 minutes on the shared 2-core machine.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import defaultdict

import pytest

from tools.mutation.records import digest
from tools.mutation.targets import DEFAULT_MODULES, IMPORT_CONTEXT, MAP, ROOT, expand


def test_file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


class Collector:
    """A pytest plugin: switch coverage's context to each test; time each test file."""

    def __init__(self, cov) -> None:
        self.cov = cov
        self.seconds: dict[str, float] = defaultdict(float)
        self.failed: set[str] = set()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self.cov.switch_context(item.nodeid)
        return None  # let pytest run the test

    def pytest_runtest_logreport(self, report):
        path = test_file_of(report.nodeid)
        self.seconds[path] += report.duration
        if report.failed:
            self.failed.add(path)


def build_map(data, modules: list[str], seconds: dict[str, float], failed: set[str]) -> dict:
    """The JSON map from coverage data: module -> line -> test file -> tests executing it."""
    out: dict = {"made": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                 "commit": _commit(), "seconds": {k: round(v, 3) for k, v in seconds.items()},
                 "failed": sorted(failed), "modules": {},
                 "sha256": {m: digest(ROOT / m) for m in modules}}
    for module in modules:
        by_line = data.contexts_by_lineno(str(ROOT / module))
        lines: dict[str, dict[str, int]] = {}
        for lineno, contexts in by_line.items():
            files: dict[str, int] = defaultdict(int)
            for ctx in contexts:
                files[test_file_of(ctx) if ctx else IMPORT_CONTEXT] += 1
            lines[str(lineno)] = dict(sorted(files.items()))
        out["modules"][module] = lines
    return out


def _commit() -> str:
    proc = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return proc.stdout.strip()


# What the map covers by default: the core modules and every executor file.
MAPPED = (*DEFAULT_MODULES, "executor/*.py")


def merge(old: dict, new: dict, files: set[str]) -> dict:
    """`old` with the contributions of the test `files` replaced by those in `new` (a map of
    a run of just those files over the same source)."""
    for module, lines in old["modules"].items():
        for k in list(lines):
            kept = {f: n for f, n in lines[k].items() if f not in files}
            kept.update({f: n for f, n in new["modules"].get(module, {}).get(k, {}).items()
                         if f != IMPORT_CONTEXT})
            lines[k] = dict(sorted(kept.items()))
        for k, got in new["modules"].get(module, {}).items():
            lines.setdefault(k, {f: n for f, n in got.items() if f != IMPORT_CONTEXT})
    old["seconds"] = {f: t for f, t in old["seconds"].items() if f not in files}
    old["seconds"].update(new["seconds"])
    old["failed"] = sorted((set(old["failed"]) - files) | set(new["failed"]))
    old.setdefault("updated", []).append({"made": new["made"], "files": sorted(files)})
    return old


def main(argv: list[str]) -> int:
    """`map [MODULE ...] [-- PYTEST_ARGS]`: the whole suite (or PYTEST_ARGS) over the default
    modules and any named; `map --update -- TEST_FILE ...`: run just those test files and
    replace their part of the existing map (the modules must not have changed since)."""
    import coverage

    from tools.mutation.targets import load_map

    update = argv[:1] == ["--update"]
    argv = argv[1:] if update else argv
    split = argv.index("--") if "--" in argv else len(argv)
    pytest_args = argv[split + 1:] or ["tests"]
    if update:
        old = load_map()
        modules = list(old["modules"])
        changed = [m for m in modules if old.get("sha256", {}).get(m) != digest(ROOT / m)]
        if changed:
            sys.exit(f"{changed} changed since the map was made: remake it (`make mutation-map`)")
        if pytest_args == ["tests"]:
            sys.exit("--update takes the test files to map again: map --update -- FILE ...")
    else:
        modules = expand(list(MAPPED) + argv[:split])
    cov = coverage.Coverage(data_file=None, include=[str(ROOT / m) for m in modules],
                            config_file=False)
    collector = Collector(cov)
    cov.start()
    try:
        code = pytest.main(["-q", "-p", "no:cacheprovider", *pytest_args], plugins=[collector])
    finally:
        cov.stop()
    result = build_map(cov.get_data(), modules, collector.seconds, collector.failed)
    if update:
        result = merge(old, result, set(collector.seconds))
    MAP.parent.mkdir(parents=True, exist_ok=True)
    MAP.write_text(json.dumps(result, indent=0, sort_keys=True), encoding="utf-8")
    print(f"wrote {MAP.relative_to(ROOT)}: {len(modules)} modules, "
          f"{len(result['seconds'])} test files; failed: {result['failed'] or 'none'}")
    return int(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

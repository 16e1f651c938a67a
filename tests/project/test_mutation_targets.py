"""tools/mutation/targets.py and coverage_map.py: a mutant runs the test files that execute
its line, likeliest killers first, within a time budget (issue 30 item 3)."""

import pytest

from tools.mutation import coverage_map, targets
from tools.mutation.targets import IMPORT_CONTEXT, LineTests

MODULE = "executor/plan.py"  # its own tests: tests/executor/test_plan.py
OWN = "tests/executor/test_plan.py"


def _map(lines, seconds, failed=()):
    return {"modules": {MODULE: lines}, "seconds": seconds, "failed": list(failed)}


SECONDS = {OWN: 5.0, "tests/a.py": 1.0, "tests/b.py": 10.0, "tests/c.py": 40.0,
           "tests/broken.py": 1.0}
LINES = {
    "10": {IMPORT_CONTEXT: 1},  # a module body line
    "20": {"tests/a.py": 2, "tests/b.py": 30, "tests/c.py": 4},  # own file never runs it
    "30": {OWN: 1, "tests/c.py": 40, "tests/broken.py": 9},
}


def test_a_mutant_runs_its_own_test_file_first_then_the_most_tests_per_second():
    tests = LineTests(MODULE, _map(LINES, SECONDS))
    # b: 30 tests in 10 s beats a: 2 in 1 s, which beats c: 4 in 40 s
    assert tests.tests_for(20, budget=1000) == [OWN, "tests/b.py", "tests/a.py", "tests/c.py"]


def test_the_list_is_cut_at_the_budget_but_never_empty():
    tests = LineTests(MODULE, _map(LINES, SECONDS))
    assert tests.tests_for(20, budget=16) == [OWN, "tests/b.py", "tests/a.py"]
    assert tests.tests_for(20, budget=0) == [OWN]


def test_a_file_that_failed_when_the_map_was_made_is_never_picked():
    tests = LineTests(MODULE, _map(LINES, SECONDS, failed=["tests/broken.py"]))
    assert tests.tests_for(30, budget=1000) == [OWN, "tests/c.py"]


def test_an_import_time_line_runs_every_file_that_executes_the_module():
    tests = LineTests(MODULE, _map(LINES, SECONDS))
    assert set(tests.tests_for(10, budget=1000)) == {OWN, "tests/a.py", "tests/b.py",
                                                     "tests/c.py", "tests/broken.py"}
    assert not tests.executed(10) and tests.executed(20)
    assert tests.at_import(10) and not tests.at_import(20)


def test_a_line_no_test_executes_runs_the_own_test_file_only():
    tests = LineTests(MODULE, _map(LINES, SECONDS))
    assert tests.tests_for(99) == [OWN] and not tests.executed(99) and not tests.at_import(99)


def test_a_module_the_map_does_not_hold_asks_for_a_new_map():
    with pytest.raises(SystemExit, match="not in the coverage map: run `make mutation-map"):
        LineTests("ops/registry.py", _map(LINES, SECONDS))


def test_own_tests_mirror_the_source_tree():
    assert targets.own_tests("paddle_ir/core/lod_tensor.py") == ["tests/core/test_lod_tensor.py"]
    assert targets.own_tests("ops/registry.py") == ["tests/ops/test_registry.py"]
    assert targets.own_tests("executor/no_such_module.py") == []


class _Data:
    """coverage.CoverageData's one call build_map makes."""

    def __init__(self, by_line):
        self.by_line = by_line

    def contexts_by_lineno(self, filename):
        return self.by_line if filename.endswith(MODULE) else {}


def test_the_map_counts_the_tests_of_each_file_that_executed_a_line():
    data = _Data({5: [""], 7: ["tests/a.py::test_x", "tests/a.py::test_y[1]",
                                "tests/b.py::K::test_z"]})
    built = coverage_map.build_map(data, [MODULE], {"tests/a.py": 1.5}, {"tests/b.py"})
    assert built["modules"][MODULE] == {"5": {IMPORT_CONTEXT: 1},
                                        "7": {"tests/a.py": 2, "tests/b.py": 1}}
    assert built["seconds"] == {"tests/a.py": 1.5} and built["failed"] == ["tests/b.py"]
    assert len(built["sha256"][MODULE]) == 64

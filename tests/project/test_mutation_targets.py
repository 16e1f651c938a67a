"""tools/mutation/targets.py and coverage_map.py: a mutant runs the test files that execute
its line, likeliest killers first (the files specific to its function and its module, and
the most tests per second, in turn), within a time budget (issue 30)."""

import pytest

from tools.mutation import coverage_map, targets
from tools.mutation.targets import IMPORT_CONTEXT, LineTests

MODULE = "executor/plan.py"  # its own tests: tests/executor/test_plan.py
OWN = "tests/executor/test_plan.py"
# The module's text, for its functions' spans: `step` on lines 1-40, `helper` on 41-60.
SOURCE = ("def step():\n" + "    pass\n" * 39 + "def helper():\n" + "    pass\n" * 19)


def _map(lines, seconds, failed=()):
    return {"modules": {MODULE: lines}, "seconds": seconds, "failed": list(failed)}


def _tests(lines, seconds, failed=()):
    return LineTests(MODULE, _map(lines, seconds, failed), source=SOURCE)


SECONDS = {OWN: 5.0, "tests/a.py": 1.0, "tests/b.py": 10.0, "tests/c.py": 40.0,
           "tests/broken.py": 1.0}
LINES = {
    "10": {IMPORT_CONTEXT: 1},  # a module body line
    "20": {"tests/a.py": 2, "tests/b.py": 30, "tests/c.py": 4},  # own file never runs it
    "30": {OWN: 1, "tests/c.py": 40, "tests/broken.py": 9},
}


def test_with_no_file_more_specific_a_mutant_runs_its_own_file_then_the_most_tests_per_second():
    # a and b execute only line 20 of the module, c line 30 too: make c's extra line one
    # every file runs, so no file's coverage is more specific than another's
    lines = {"20": LINES["20"], "30": {"tests/a.py": 1, "tests/b.py": 1, "tests/c.py": 1}}
    tests = _tests(lines, SECONDS)
    # b: 30 tests in 10 s beats a: 2 in 1 s, which beats c: 4 in 40 s
    assert tests.tests_for(20, budget=1000) == [OWN, "tests/b.py", "tests/a.py", "tests/c.py"]


# Line 5 of `step` runs for every op (a loop); line 6 is a branch only c reaches (a sparse
# output converted back); `helper`'s line 46 only d reaches.
SPECIFIC_SECONDS = {OWN: 5.0, "tests/a.py": 1.0, "tests/b.py": 10.0, "tests/c.py": 3.0,
                    "tests/d.py": 5.0}
SPECIFIC = {
    "5": {"tests/a.py": 50, "tests/b.py": 30, "tests/c.py": 1, "tests/d.py": 2},
    "6": {"tests/c.py": 1},
    "45": {"tests/a.py": 3, "tests/b.py": 3, "tests/d.py": 1},
    "46": {"tests/d.py": 1},
}


def test_files_reaching_the_rare_lines_of_the_function_and_of_the_module_come_early():
    tests = _tests(SPECIFIC, SPECIFIC_SECONDS)
    function = tests.specificity(tests.span_of(5))
    assert function == pytest.approx({"tests/a.py": 0.25, "tests/b.py": 0.25,
                                      "tests/c.py": 1.25, "tests/d.py": 0.25})
    module = tests.specificity()
    assert module["tests/d.py"] == pytest.approx(0.25 + 1 / 3 + 1)
    assert module["tests/a.py"] == pytest.approx(0.25 + 1 / 3)
    # own; c (the function's rare branch); d (the module's); a (most tests per second);
    # then the function's ranking again: a, b, d tie there, broken by tests per second
    assert tests.tests_for(5, budget=1000) == [OWN, "tests/c.py", "tests/d.py", "tests/a.py",
                                               "tests/b.py"]
    # by tests per second alone, c would come last (1 test in 3 s)
    assert tests.rankings(5, SPECIFIC["5"])[2][-1] == "tests/c.py"


def test_a_file_that_does_not_fit_the_budget_is_passed_over_for_a_shorter_one():
    tests = _tests(SPECIFIC, SPECIFIC_SECONDS)
    # own 5 s + c 3 s; d (5 s) does not fit in 10, a (1 s) does; b (10 s) never fits
    assert tests.tests_for(5, budget=10) == [OWN, "tests/c.py", "tests/a.py"]


def test_the_list_is_cut_at_the_budget_but_never_empty():
    tests = _tests(LINES, SECONDS)
    assert tests.tests_for(20, budget=0) == [OWN]
    no_own = LineTests("executor/no_such_module.py",
                       {"modules": {"executor/no_such_module.py": LINES}, "seconds": SECONDS,
                        "failed": []}, source=SOURCE)
    assert no_own.own == [] and len(no_own.tests_for(20, budget=0)) == 1


def test_a_line_many_files_execute_gets_a_larger_budget_up_to_twice():
    assert targets.budget_for(1, 20.0) == targets.budget_for(16, 20.0) == 20.0
    assert targets.budget_for(64, 20.0) == pytest.approx(30.0)  # log2 64 / log2 16 = 1.5
    assert targets.budget_for(256, 20.0) == targets.budget_for(5000, 20.0) == 40.0


def test_functions_are_top_level_functions_and_methods_with_their_nested_functions():
    source = ("import x\n"              # 1
              "def outer():\n"          # 2
              "    def inner():\n"      # 3
              "        return 1\n"      # 4
              "    return inner\n"      # 5
              "class K:\n"              # 6
              "    size = 3\n"          # 7
              "    def method(self):\n"  # 8
              "        return 2\n")      # 9
    assert targets.top_level_spans(source) == [(2, 5), (8, 9)]
    tests = LineTests(MODULE, _map({}, {}), source=source)
    assert tests.span_of(4) == (2, 5) and tests.span_of(9) == (8, 9)
    assert tests.span_of(1) is None and tests.span_of(7) is None


def test_a_file_that_failed_when_the_map_was_made_is_never_picked():
    tests = _tests(LINES, SECONDS, failed=["tests/broken.py"])
    assert tests.tests_for(30, budget=1000) == [OWN, "tests/c.py"]


def test_an_import_time_line_runs_every_file_that_executes_the_module():
    tests = _tests(LINES, SECONDS)
    assert set(tests.tests_for(10, budget=1000)) == {OWN, "tests/a.py", "tests/b.py",
                                                     "tests/c.py", "tests/broken.py"}
    assert not tests.executed(10) and tests.executed(20)
    assert tests.at_import(10) and not tests.at_import(20)


def test_a_line_no_test_executes_runs_the_own_test_file_only():
    tests = _tests(LINES, SECONDS)
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

from pathlib import Path

import pytest

from paddle_ir.framework import unique_name
from paddle_ir.ops.registry import load_all
from tests import op_suite

# The registry loads op modules on demand. Tests that swap the registry for a copy
# (monkeypatch) would keep the ops that load meanwhile out of the real one, so the suite
# loads them all up front; tests/ops/test_op_index.py tests loading on demand in fresh
# interpreters.
load_all()


@pytest.fixture(autouse=True)
def fresh_names():
    """Every test names its variables from fc_0 on, so messages are predictable."""
    with unique_name.guard():
        yield


# -- the op suite's coverage gate (tests/op_suite.py) ------------------------------------------

_TESTS = Path(__file__).resolve().parent
_RECORDER = pytest.MonkeyPatch()


def pytest_sessionstart(session):
    op_suite.record_cached_runs(_RECORDER)


def _whole_suite(config) -> bool:
    """Whether this run is the whole suite: every path it was given is tests/ or above,
    and nothing deselects (-k, -m, --lf, --deselect)."""
    option = config.option
    if option.keyword or option.markexpr or getattr(option, "lf", False) \
            or getattr(option, "deselect", None):
        return False
    paths = [Path(str(arg).split("::")[0]).resolve() for arg in config.args]
    return bool(paths) and all(p == _TESTS or p in _TESTS.parents for p in paths)


def pytest_sessionfinish(session, exitstatus):
    _RECORDER.undo()
    if exitstatus != 0 or not _whole_suite(session.config):
        return
    problems = op_suite.gaps(op_suite.EXERCISED, op_suite.load_exemptions())
    if problems:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        reporter.write_line(f"op suite coverage gate: {len(problems)} problem(s)", red=True)
        for line in problems:
            reporter.write_line(f"  {line}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED

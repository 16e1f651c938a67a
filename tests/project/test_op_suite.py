"""The op suite's coverage gate (tests/op_suite.py, run by tests/conftest.py)."""

from types import SimpleNamespace

import pytest

from paddle_ir.ops.registry import load_all, registered_op_types
from tests import conftest, op_suite


def _everything():
    load_all()
    forward = {t for t in registered_op_types() if not t.endswith("_grad")}
    return {"cached": set(forward), "grad": {t for t in forward if op_suite.has_gradient(t)}}


def test_an_op_never_reached_is_named():
    exercised = _everything()
    exercised["cached"].discard("sgd")
    exercised["grad"].discard("conv2d")
    none = {"cached": {}, "grad": {}}
    problems = op_suite.gaps(exercised, none)
    assert len(problems) == 2
    assert problems[0].startswith("sgd never ran on a cached plan")
    assert problems[1].startswith("conv2d has a gradient that check_grad never checked")
    assert op_suite.gaps(exercised, {"cached": {"sgd": "why"}, "grad": {"conv2d": "why"}}) == []


def test_stale_exemptions_are_named():
    problems = op_suite.gaps(_everything(), {"cached": {"relu": "why", "no_such_op": "why"},
                                             "grad": {"equal": "why"}})
    assert problems == [
        "op_suite_exemptions.py CACHED exempts no_such_op, which is not a registered op",
        "op_suite_exemptions.py CACHED exempts relu, which the suite reaches: remove the "
        "exemption",
        "op_suite_exemptions.py GRAD exempts equal, which is not a registered op with a "
        "gradient"]


def test_which_ops_have_a_gradient():
    assert op_suite.has_gradient("relu") and op_suite.has_gradient("conv2d")
    assert op_suite.has_gradient("while")  # its grad block is built by append_backward
    assert not op_suite.has_gradient("equal")  # a boolean output
    assert not op_suite.has_gradient("sgd")


def test_every_exemption_gives_a_reason():
    exemptions = op_suite.load_exemptions()
    for kind, table in exemptions.items():
        for op_type, reason in table.items():
            assert isinstance(reason, str) and len(reason) > 20, (kind, op_type)


@pytest.mark.parametrize("args, keyword, whole", [
    (["tests"], "", True), ([str(conftest._TESTS.parent)], "", True),
    (["tests/ops"], "", False), (["tests/ops/nn/test_conv.py::test_conv2d"], "", False),
    (["tests"], "conv", False)])
def test_the_gate_runs_on_whole_suite_runs_only(monkeypatch, args, keyword, whole):
    monkeypatch.chdir(conftest._TESTS.parent)
    option = SimpleNamespace(keyword=keyword, markexpr="", lf=False, deselect=None)
    assert conftest._whole_suite(SimpleNamespace(option=option, args=args)) is whole

"""register_simple (ops/simple_op.py): the grad op it declares for an op like `norm`."""

from paddle_ir.cli.opinfo import describe_op
from paddle_ir.ops import registry

GIVEN = {"X": ["x"], "Norm": ["norm"], "Out@GRAD": ["dout"]}
OUTPUTS = {"X@GRAD": ["dx"]}


def test_the_grad_op_requires_one_of_each_kept_output_and_the_output_gradient():
    """norm_grad reads X, the kept forward output Norm and Out@GRAD: each one variable,
    none optional (a grad op without dOut has nothing to compute from)."""
    grad = registry.get_op_def("norm_grad")
    assert grad.problems(GIVEN, OUTPUTS, {}) == []
    for slot in ("Norm", "Out@GRAD"):
        missing = {k: v for k, v in GIVEN.items() if k != slot}
        assert grad.problems(missing, OUTPUTS, {}) == [
            f"input {slot} of norm_grad is required but is not given"]
        assert grad.problems({**GIVEN, slot: ["a", "b"]}, OUTPUTS, {}) == [
            f"input {slot} of norm_grad takes one variable, got 2: ['a', 'b']"]
    # its output is optional: a gradient nobody asked for is not computed
    assert grad.problems(GIVEN, {}, {}) == []


def test_the_grad_op_s_inputs_are_listed_without_flags():
    """`paddle-ir ops norm_grad`: the kernel reads the data of every input (none is
    no_need_buffer, so the executor keeps Norm's data alive until norm_grad has run)."""
    assert ("  inputs:\n    X\n    Norm\n    Out@GRAD\n  outputs:\n    X@GRAD [dispensable]\n"
            in describe_op("norm_grad"))

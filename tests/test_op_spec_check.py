"""One check of an op against its spec (OpDef.problems), three users with one voice:
the builder raises the first problem, the executor raises the first, and
`paddle-ir check` lists them all, each with the same message."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.analysis.checker import check_program
from paddle_ir.core.errors import InvalidProgramError
from paddle_ir.ops.registry import Attr, In, Out, get_op_def, register_op
from paddle_ir.proto import framework_pb2 as pb

_NEEDS_K = register_op("test_spec_needs_k", inputs=[In("X")], outputs=[Out("Out")],
                       attrs=[Attr("k", "int", doc="no default: required")],
                       doc="an op for tests/test_op_spec_check.py")


def test_problems_lists_every_defect_in_one_wording():
    scale = get_op_def("scale")
    found = scale.problems({"X": ["a", "b"], "Z": ["c"]}, {},
                           {"scale": "big", "colour": "red", "op_role": 1})
    assert found == [
        "input X of scale takes one variable, got 2: ['a', 'b']",
        "scale has no input slot 'Z'; its inputs are ['X']",
        "output Out of scale is required but is not given",
        "attribute 'scale' of scale must be a float, got str 'big'",
        "scale has no attribute 'colour'; its attributes are ['scale', 'bias', "
        "'bias_after_scale']",
    ]
    assert _NEEDS_K.problems({"X": ["a"]}, {"Out": ["b"]}, {}) == [
        "attribute 'k' of test_spec_needs_k is required but is not given"]
    assert scale.problems({"X": ["a"]}, {"Out": ["b"]}, {"op_role": 1}) == []
    assert list(scale.with_defaults({"op_role": 1, "scale": 2.0})) == [
        "scale", "bias", "bias_after_scale", "op_role"]


def _program():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = pir.layers.data("x", [-1, 3])
        y = pir.layers.scale(x, 2.0)
    return main, y


def _parsed(mutate):
    main, y = _program()
    desc = pb.ProgramDesc()
    desc.CopyFrom(main.desc)
    mutate(desc.blocks[0].ops[0])
    return desc, y


@pytest.mark.parametrize("mutate, message", [
    (lambda op: op.inputs[0].arguments.append("x"),
     "input X of scale takes one variable, got 2: ['x', 'x']"),
    (lambda op: next(a for a in op.attrs if a.name == "scale").__setattr__("type", pb.STRING),
     "attribute 'scale' of scale must be float (AttrType FLOAT), but the program stores "
     "STRING"),
    (lambda op: op.attrs.add(name="colour", type=pb.STRING, s="red"),
     "scale has no attribute 'colour'"),
])
def test_executor_and_checker_say_the_same(mutate, message):
    desc, y = _parsed(mutate)
    program = pir.Program.parse(desc.SerializeToString())
    with pytest.raises(InvalidProgramError, match="op #0 scale") as raised:
        pir.Executor().run(program, feed={"x": np.ones((1, 3), np.float32)},
                           fetch_list=[y.name], scope=pir.Scope())
    assert message in str(raised.value)
    texts = [str(p) for p in check_program(desc)]
    assert any(message in t for t in texts), texts


def test_builder_raises_the_first_problem_in_the_same_words():
    main, _ = _program()
    block = main.global_block()
    x = block.var("x")
    with pytest.raises(InvalidProgramError,
                       match=r"input X of scale takes one variable, got 2: \['x', 'x'\]"):
        block.append_op("scale", inputs={"X": [x, x]}, outputs={"Out": x})
    with pytest.raises(InvalidProgramError, match="attribute 'k' of test_spec_needs_k is "
                                                  "required but is not given"):
        block.append_op("test_spec_needs_k", inputs={"X": x}, outputs={"Out": x})
    with pytest.raises(InvalidProgramError, match=r"attribute 'scale' of scale must be a float, "
                                                  r"got str 'big'"):
        block.append_op("scale", inputs={"X": x}, outputs={"Out": x}, attrs={"scale": "big"})

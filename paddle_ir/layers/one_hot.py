"""one_hot layers: Fluid 1.x's `layers.one_hot` ([..., 1] ids) and 1.7's `fluid.one_hot`."""

from __future__ import annotations

from paddle_ir.framework import Variable
from paddle_ir.layers.helper import LayerHelper


def _one_hot(op_type: str, input: Variable, depth: int,  # noqa: A002 - Fluid's name
             allow_out_of_range: bool) -> Variable:
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference("float32", stop_gradient=True)
    helper.append_op(op_type, inputs={"X": input}, outputs={"Out": out},
                     attrs={"depth": int(depth), "allow_out_of_range": bool(allow_out_of_range)})
    return out


def one_hot(input: Variable, depth: int, allow_out_of_range: bool = False) -> Variable:  # noqa: A002
    """float32 rows of `depth` with a 1 at each id; `input` is [..., 1] (the 1 is replaced)."""
    return _one_hot("one_hot", input, depth, allow_out_of_range)


def one_hot_v2(input: Variable, depth: int, allow_out_of_range: bool = False) -> Variable:  # noqa: A002
    """Fluid 1.7's top-level `fluid.one_hot`: ids of any shape; Out appends a dim of `depth`."""
    return _one_hot("one_hot_v2", input, depth, allow_out_of_range)

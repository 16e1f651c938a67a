"""lod_reset (+ _grad): X's data with a new LoD.

The new LoD comes from, in order:

- Y, if given and it carries a LoD: Out takes Y's whole LoD;
- Y, if given without a LoD: Y's values are the offsets of one level;
- the attribute `target_lod`: the offsets of one level (offsets, not
  lengths, as in Paddle: [0, 2, 5] is two sequences of 2 and 3 rows).

With `append=True` a level given as offsets is appended below X's levels
(lod_append) instead of replacing them. The result must be a valid LoD for
X's rows: it starts at 0, never decreases and its last level ends at
X.shape[0]. Paddle's example:

    X = [1, 2, 3, 4, 5, 6] (lod [[0, 2, 6]]), target_lod = [0, 4, 6]
    -> Out = X's data, Out.lod = [[0, 4, 6]]

Gradient: dX = dOut's data, with X's LoD.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import InvalidLoDError
from paddle_ir.core.lod_tensor import LoDTensor, validate_offsets
from paddle_ir.ops.registry import ALL_DTYPES, FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.sequence_ops.sequence_common import lod_error

lod_reset = register_op(
    "lod_reset",
    inputs=[In("X", "the data"),
            In("Y", "a LoDTensor whose LoD (or, without one, whose values as offsets) "
                    "becomes Out's", dispensable=True)],
    outputs=[Out("Out", "X's data with the new LoD")],
    attrs=[Attr("target_lod", "ints", [], "offsets of the new level, when Y is not given"),
           Attr("append", "bool", False, "append the new level below X's instead")],
    doc=__doc__,
)


def _out_levels(ctx) -> int:
    """The rule, on lod_level at build time and on the values' LoD at run time."""
    if ctx.has_input("Y") and ctx.input_lod_level("Y") > 0:
        return ctx.input_lod_level("Y")
    return ctx.input_lod_level("X") + 1 if ctx.attr("append") else 1


@lod_reset.infer_shape
def _(ctx):
    x_shape = ctx.input_shape("X")
    ctx.enforce(len(x_shape) >= 1, "lod_reset requires X with at least one dim (its rows)")
    if not ctx.has_input("Y"):
        target = list(ctx.attr("target_lod"))
        ctx.enforce(len(target) >= 2, lambda:
                    f"lod_reset needs Y or a target_lod of at least 2 offsets, got {target}",
                    hint="target_lod holds offsets: [0, 2, 5] is sequences of 2 and 3 rows")
        ctx.enforce(x_shape[0] < 0 or target[-1] == x_shape[0],
                    lambda: f"target_lod {target} must end at X's row count {x_shape[0]}",
                    hint="target_lod holds offsets, not lengths: lengths [2, 3] are "
                         "offsets [0, 2, 5]")
    elif ctx.input_lod_level("Y") == 0:
        ctx.enforce(ctx.input_dtype("Y").kind in "iu",
                    lambda: f"Y without a LoD gives offsets, so it must be integral, got "
                    f"{ctx.input_dtype('Y')}")
    ctx.set_output("Out", x_shape, ctx.input_dtype("X"))
    ctx.set_output_lod_level("Out", _out_levels(ctx))


def new_lod(x: LoDTensor, y, target_lod, append: bool, op_type: str) -> tuple:
    """Out's offsets, checked against X's rows."""
    if y is not None and y.offsets:
        levels = y.offsets
        source = "Y's LoD"
    else:
        if y is not None:
            level = np.asarray(y.numpy()).astype(np.int64).reshape(-1)
            source = "the values of Y"
        else:
            level = np.asarray(target_lod, dtype=np.int64)
            source = "target_lod"
        levels = (x.offsets if append else ()) + (level,)
    try:
        validate_offsets(levels, x.shape[0])
    except InvalidLoDError as exc:
        raise lod_error(
            op_type, f"the LoD from {source} does not fit X ({x.shape[0]} rows): {exc.message}",
            hint="offsets start at 0, never decrease and end at X.shape[0]; lengths [2, 3] "
                 "are offsets [0, 2, 5]") from None
    return levels


@lod_reset.kernel(dtypes=ALL_DTYPES, lod=True)
def lod_reset_kernel(attrs, x: LoDTensor, y):
    levels = new_lod(x, y, attrs["target_lod"], attrs["append"], "lod_reset")
    return LoDTensor.unchecked(x.numpy(), levels)


@lod_reset.grad_maker
def _(g):
    return [g.grad_op("lod_reset_grad",
                      inputs={"X": g.input("X"), "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")})]


lod_reset_grad = register_op(
    "lod_reset_grad",
    inputs=[In("X"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    key_inputs=["Out@GRAD"],
    doc="dX = dOut's data with X's LoD.",
)


@lod_reset_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("Out@GRAD"))
    ctx.share_lod("X", "X@GRAD")


@lod_reset_grad.kernel(dtypes=FLOATS)
def lod_reset_grad_kernel(attrs, x, dout):
    return dout.reshape(x.shape)

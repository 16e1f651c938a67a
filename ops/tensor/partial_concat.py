"""partial_concat (+ _grad): the same column range of several matrices, side by side.

Every X[i] is [N, D]; with s = start_index (negative counts from D) and
l = length (-1: to the end):

    Out = concat(X[0][:, s:s+l], X[1][:, s:s+l], ...)   along axis 1, [N, l * len(X)]
    dX[i][:, s:s+l] = dOut[:, i*l:(i+1)*l], 0 in the other columns

`column_range` is shared with partial_sum. A negative start_index counts from the end
here; Paddle 3.3.1's CPU partial_sum reads outside the rows for one (its output there
is not a sum of X's columns), so programs that depend on it get Paddle's intent, not
its bytes.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import Attr, In, Out
from paddle_ir.ops.simple_op import register_simple

RANGE_ATTRS = [Attr("start_index", "int", 0, "the first column (negative: from the end)"),
               Attr("length", "int", -1, "how many columns (-1: to the end)")]


def column_range(ctx_or_attrs, width: int) -> tuple[int, int] | str:
    """(start, stop) of the columns taken from [N, width] inputs, or why they are invalid."""
    get = ctx_or_attrs.attr if hasattr(ctx_or_attrs, "attr") else ctx_or_attrs.__getitem__
    start, length = get("start_index"), get("length")
    if not -width <= start < width:
        return f"start_index {start} is outside [-{width}, {width}) for inputs of width {width}"
    start %= width
    stop = width if length < 0 else start + length
    if length == 0 or stop > width:
        return (f"start_index {start} + length {length} must take 1 to {width - start} "
                f"columns of the {width}")
    return start, stop


def infer_columns(ctx) -> tuple[int, int, int]:
    """Check the X inputs ([N, D], all alike) and the range; (count, start, stop)."""
    count = ctx.input_count("X")
    first = ctx.input_shape("X", 0)
    ctx.enforce(len(first) == 2, lambda: f"each X must be [N, D], got {shape_str(first)}")
    for i in range(1, count):
        shape = ctx.input_shape("X", i)
        ctx.enforce(len(shape) == 2 and all(a < 0 or b < 0 or a == b
                                            for a, b in zip(shape, first, strict=True)),
                    lambda: f"every X must have X[0]'s shape {shape_str(first)}, X[{i}] has "
                    f"{shape_str(shape)}")
    if first[1] < 0:
        return count, -1, -1
    columns = column_range(ctx, first[1])
    if isinstance(columns, str):
        ctx.fail(columns)
    return (count,) + columns


def _infer(ctx):
    count, start, stop = infer_columns(ctx)
    width = -1 if start < 0 else (stop - start) * count
    ctx.set_output("Out", (ctx.input_shape("X", 0)[0], width), ctx.input_dtype("X"))


def _forward(attrs, xs):
    start, stop = column_range(attrs, xs[0].shape[1])
    return np.concatenate([x[:, start:stop] for x in xs], axis=1)


def _backward(attrs, xs, dout):
    start, stop = column_range(attrs, xs[0].shape[1])
    grads = []
    for i, x in enumerate(xs):
        dx = np.zeros(x.shape, dout.dtype)
        dx[:, start:stop] = dout[:, i * (stop - start):(i + 1) * (stop - start)]
        grads.append(dx)
    return grads


register_simple("partial_concat", [In("X", "[N, D] matrices of one shape", duplicable=True)],
                [Out("Out", "[N, length * len(X)]")], RANGE_ATTRS, _infer, _forward,
                backward=_backward, wrt=["X"], doc=__doc__)

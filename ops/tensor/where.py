"""where, masked_select and index_select (+ _grad): Paddle 2.x's selection ops.

    where          Out = Condition ? X : Y (all three broadcast together)
                   dX = dOut where Condition (summed to X's shape), dY = dOut elsewhere
    masked_select  Y = X[Mask] (Mask broadcast with X), a 1-D tensor in row-major order
                   dX = dY put back at the selected positions
    index_select   Out = take(X, Index, dim);  dX = dOut added back at Index along dim
                   (repeated indices accumulate)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.broadcast import infer_numpy_broadcast
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.grad import infer_grads_like_inputs
from paddle_ir.ops.registry import ALL_DTYPES, FLOATS, INTS, Attr, In, Out, register_op
from paddle_ir.ops.tensor.expand_v2 import sum_to_shape

# --- where ------------------------------------------------------------------------------

where = register_op(
    "where",
    inputs=[In("Condition", "bool"), In("X"), In("Y")],
    outputs=[Out("Out", "X where Condition, else Y")],
    key_inputs=["X"],
    doc=__doc__,
)


@where.infer_shape
def _(ctx):
    ctx.enforce(ctx.input_dtype("Condition") == np.bool_,
                lambda: f"Condition must be bool, got {ctx.input_dtype('Condition')}")
    ctx.enforce(ctx.input_dtype("X") == ctx.input_dtype("Y"),
                lambda: f"X and Y must share a dtype, got {ctx.input_dtype('X')} and "
                f"{ctx.input_dtype('Y')}")
    shape = infer_numpy_broadcast(ctx, ("Condition", "X", "Y"))
    ctx.set_output("Out", shape, ctx.input_dtype("X"))


@where.kernel(dtypes=ALL_DTYPES)
def where_kernel(attrs, cond, x, y):
    return np.where(cond, x, y)


@where.grad_maker
def _(g):
    return [g.grad_op("where_grad",
                      inputs={"Condition": g.input("Condition"), "X": g.input("X"),
                              "Y": g.input("Y"), "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X"), "Y@GRAD": g.input_grad("Y")})]


where_grad = register_op(
    "where_grad",
    inputs=[In("Condition"), In("X", no_need_buffer=True), In("Y", no_need_buffer=True),
            In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True), Out("Y@GRAD", dispensable=True)],
    key_inputs=["Out@GRAD"],
    doc="dX = dOut where Condition, dY = dOut elsewhere, each summed to its input's shape.",
)


where_grad.infer_shape(infer_grads_like_inputs)


@where_grad.kernel(dtypes=FLOATS)
def where_grad_kernel(attrs, cond, x, y, dout):
    zero = np.zeros((), dout.dtype)
    return (sum_to_shape(np.where(cond, dout, zero), x.shape),
            sum_to_shape(np.where(cond, zero, dout), y.shape))


# --- masked_select ----------------------------------------------------------------------

masked_select = register_op(
    "masked_select",
    inputs=[In("X"), In("Mask", "bool, broadcast with X")],
    outputs=[Out("Y", "1-D: the entries of X where Mask is true")],
    doc=__doc__,
)


@masked_select.infer_shape
def _(ctx):
    ctx.enforce(ctx.input_dtype("Mask") == np.bool_,
                lambda: f"Mask must be bool, got {ctx.input_dtype('Mask')}")
    infer_numpy_broadcast(ctx, ("X", "Mask"))
    ctx.set_output("Y", [-1], ctx.input_dtype("X"))


@masked_select.kernel(dtypes=ALL_DTYPES)
def masked_select_kernel(attrs, x, mask):
    xb, mb = np.broadcast_arrays(x, mask)
    return np.ascontiguousarray(xb[mb])


@masked_select.grad_maker
def _(g):
    return [g.grad_op("masked_select_grad",
                      inputs={"X": g.input("X"), "Mask": g.input("Mask"),
                              "Y@GRAD": g.output_grad("Y")},
                      outputs={"X@GRAD": g.input_grad("X")})]


masked_select_grad = register_op(
    "masked_select_grad",
    inputs=[In("X", no_need_buffer=True), In("Mask"), In("Y@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    key_inputs=["Y@GRAD"],
    doc="dX = dY at the selected positions, zeros elsewhere (summed to X's shape).",
)


@masked_select_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))


@masked_select_grad.kernel(dtypes=FLOATS)
def masked_select_grad_kernel(attrs, x, mask, dy):
    shape = np.broadcast_shapes(x.shape, mask.shape)
    full = np.zeros(shape, dy.dtype)
    full[np.broadcast_to(mask, shape)] = dy
    return sum_to_shape(full, x.shape)


# --- index_select -----------------------------------------------------------------------

index_select = register_op(
    "index_select",
    inputs=[In("X"), In("Index", "int32 or int64, 1-D")],
    outputs=[Out("Out", "X with dim `dim` replaced by the selected entries")],
    attrs=[Attr("dim", "int", 0, "the dim indexed (negative counts from the end)")],
    doc=__doc__,
)


@index_select.infer_shape
def _(ctx):
    x, index = ctx.input_shape("X"), ctx.input_shape("Index")
    rank = max(len(x), 1)
    dim = ctx.attr("dim")
    ctx.enforce(-rank <= dim < rank, lambda: f"dim must be in [{-rank}, {rank}), got {dim}")
    ctx.enforce(len(index) == 1 or (len(index) == 2 and index[1] == 1),
                lambda: f"Index must be 1-D, got {shape_str(index)}")
    ctx.enforce(np.dtype(ctx.input_dtype("Index")) in INTS,
                lambda: f"Index must be int32 or int64, got {ctx.input_dtype('Index')}")
    out = list(x)
    if out:
        out[dim] = index[0]
    ctx.set_output("Out", out, ctx.input_dtype("X"))


def _index(index: np.ndarray, n: int) -> np.ndarray:
    index = np.asarray(index).reshape(-1)
    if index.size and (index.min() < -n or index.max() >= n):
        raise IndexError(f"index_select: Index values must be in [{-n}, {n}), got "
                         f"[{index.min()}, {index.max()}]")
    return index


@index_select.kernel(dtypes=ALL_DTYPES)
def index_select_kernel(attrs, x, index):
    dim = attrs["dim"] % x.ndim
    return np.take(x, _index(index, x.shape[dim]), axis=dim)


@index_select.grad_maker
def _(g):
    return [g.grad_op("index_select_grad",
                      inputs={"X": g.input("X"), "Index": g.input("Index"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")}, attrs={"dim": g.attr("dim")})]


index_select_grad = register_op(
    "index_select_grad",
    inputs=[In("X", no_need_buffer=True), In("Index"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("dim", "int", 0)],
    key_inputs=["Out@GRAD"],
    doc="dX = dOut added back at Index along dim (repeats accumulate).",
)


@index_select_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))


@index_select_grad.kernel(dtypes=FLOATS)
def index_select_grad_kernel(attrs, x, index, dout):
    dim = attrs["dim"] % x.ndim
    index = _index(index, x.shape[dim]) % x.shape[dim]
    dx = np.zeros((x.shape[dim],) + tuple(np.delete(x.shape, dim)), dout.dtype)
    np.add.at(dx, index, np.moveaxis(dout, dim, 0))
    return np.ascontiguousarray(np.moveaxis(dx, 0, dim))

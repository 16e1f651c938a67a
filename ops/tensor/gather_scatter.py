"""gather, gather_nd, scatter, scatter_nd_add (+ _grad) and where_index.

    gather          Out = X[Index]                 (rows of X; Index int32/int64, [N] or [N, 1])
    gather_nd       Out[i...] = X[Index[i..., :]]  (Index [..., k] picks X's first k dims;
                                                    k = 0: every Out[i...] is all of X)
    scatter         Out = X; Out[Ids] = Updates    (overwrite: the last duplicate wins)
                    Out = X; Out[Ids] = 0; Out[Ids] += Updates   (overwrite=False: summed)
    scatter_nd_add  Out = X; Out[Index[i...]] += Updates[i...]   (duplicates accumulate)
    where_index     Out = the coordinates of Condition's true elements, int64 [n, rank]

Gradients: gather/gather_nd scatter-add dOut into zeros shaped like X;
scatter gives dX = dOut with the scattered rows zeroed and dUpdates =
dOut[Ids] (with overwrite, only the duplicate that won gets it);
scatter_nd_add gives dX = dOut, dUpdates = gather_nd(dOut, Index).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.registry import ALL_DTYPES, FLOATS, INTS, NUMERIC, Attr, In, Out, register_op


def _ids(op: str, index: np.ndarray, bound: int) -> np.ndarray:
    ids = np.asarray(index).reshape(-1).astype(np.int64)
    if ids.size and (ids.min() < 0 or ids.max() >= bound):
        raise KernelError(f"{op}: every index must be in [0, {bound}), got values in "
                          f"[{ids.min()}, {ids.max()}]")
    return ids


def _check_index_shape(ctx, slot: str) -> None:
    shape = ctx.input_shape(slot)
    ctx.enforce(len(shape) == 1 or (len(shape) == 2 and shape[1] in (1, -1)),
                lambda: f"{slot} must be [N] or [N, 1], got shape {list(shape)}")
    ctx.enforce(ctx.input_dtype(slot) in INTS,
                lambda: f"{slot} must be int32 or int64, got {ctx.input_dtype(slot)}")


# -- gather ----------------------------------------------------------------------------------

gather = register_op(
    "gather",
    inputs=[In("X"), In("Index", "int32/int64 row numbers, [N] or [N, 1]")],
    outputs=[Out("Out", "[N] + X.shape[1:]")],
    attrs=[Attr("overwrite", "bool", True, "unused (the grad always accumulates duplicates)")],
    doc=__doc__,
)


@gather.infer_shape
def _(ctx):
    _check_index_shape(ctx, "Index")
    n = ctx.input_shape("Index")[0]
    ctx.set_output("Out", (n,) + tuple(ctx.input_shape("X")[1:]), ctx.input_dtype("X"))


@gather.kernel(dtypes=ALL_DTYPES)
def gather_kernel(attrs, x, index):
    return x.take(_ids("gather", index, x.shape[0]), axis=0)


@gather.grad_maker
def _(g):
    return [g.grad_op("gather_grad", inputs={"X": g.input("X"), "Index": g.input("Index"),
                                             "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")})]


gather_grad = register_op(
    "gather_grad",
    inputs=[In("X", no_need_buffer=True), In("Index"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    key_inputs=["Out@GRAD"],
    doc="dX = zeros like X with dOut's rows added at Index (duplicates accumulate).",
)


@gather_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("Out@GRAD"))


@gather_grad.kernel(dtypes=FLOATS)
def gather_grad_kernel(attrs, x, index, dout):
    dx = np.zeros(x.shape, dtype=dout.dtype)
    np.add.at(dx, _ids("gather_grad", index, x.shape[0]), dout)
    return dx


# -- gather_nd -------------------------------------------------------------------------------

gather_nd = register_op(
    "gather_nd",
    inputs=[In("X"), In("Index", "int32/int64 [..., k], k <= rank(X)")],
    outputs=[Out("Out", "Index.shape[:-1] + X.shape[k:]")],
    doc=__doc__,
)


def _nd_out_shape(ctx, x_slot: str, index_slot: str) -> tuple[int, ...]:
    x, index = ctx.input_shape(x_slot), ctx.input_shape(index_slot)
    ctx.enforce(len(index) >= 1, lambda: f"{index_slot} must have at least one dim")
    k = index[-1]
    ctx.enforce(k < 0 or k <= len(x),
                lambda: f"{index_slot}.shape[-1] = {k} must be <= rank of {x_slot} ({len(x)})")
    ctx.enforce(ctx.input_dtype(index_slot) in INTS,
                lambda: f"{index_slot} must be int32 or int64, got {ctx.input_dtype(index_slot)}")
    return tuple(index[:-1]) + tuple(x[k:] if k >= 0 else ())


@gather_nd.infer_shape
def _(ctx):
    ctx.set_output("Out", _nd_out_shape(ctx, "X", "Index"), ctx.input_dtype("X"))


def _nd_coords(op: str, x_shape, index: np.ndarray) -> tuple:
    index = np.asarray(index).astype(np.int64)
    k = index.shape[-1]
    bounds = np.asarray(x_shape[:k], dtype=np.int64)
    if index.size and ((index < 0).any() or (index >= bounds).any()):
        raise KernelError(f"{op}: Index holds coordinates outside X's first {k} dims "
                          f"{list(x_shape[:k])}")
    return tuple(np.moveaxis(index, -1, 0))


def _add_at(op: str, target: np.ndarray, index: np.ndarray, values: np.ndarray) -> None:
    """target[Index[i...]] += values[i...], duplicates summed. An Index of shape [..., 0]
    names the whole of target for each of its rows (Paddle's slice is all of X)."""
    if np.shape(index)[-1] == 0:
        target += values.reshape((-1,) + target.shape).sum(axis=0, dtype=target.dtype)
        return
    np.add.at(target, _nd_coords(op, target.shape, index), values)


@gather_nd.kernel(dtypes=ALL_DTYPES)
def gather_nd_kernel(attrs, x, index):
    if index.shape[-1] == 0:  # every row of Index picks all of X (x[()] would not repeat it)
        return np.array(np.broadcast_to(x, index.shape[:-1] + x.shape))
    return x[_nd_coords("gather_nd", x.shape, index)]


@gather_nd.grad_maker
def _(g):
    return [g.grad_op("gather_nd_grad", inputs={"X": g.input("X"), "Index": g.input("Index"),
                                                "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")})]


gather_nd_grad = register_op(
    "gather_nd_grad",
    inputs=[In("X", no_need_buffer=True), In("Index"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    key_inputs=["Out@GRAD"],
    doc="dX = zeros like X with dOut added at the gathered coordinates.",
)
gather_nd_grad.infer_shape(gather_grad.infer_shape_fn)


@gather_nd_grad.kernel(dtypes=FLOATS)
def gather_nd_grad_kernel(attrs, x, index, dout):
    dx = np.zeros(x.shape, dtype=dout.dtype)
    _add_at("gather_nd_grad", dx, index, dout)
    return dx


# -- scatter ---------------------------------------------------------------------------------

scatter = register_op(
    "scatter",
    inputs=[In("X"), In("Ids", "int32/int64 row numbers, [N] or [N, 1]"),
            In("Updates", "[N] + X.shape[1:]")],
    outputs=[Out("Out", "X's shape")],
    attrs=[Attr("overwrite", "bool", True, "True: assign (last duplicate wins); False: sum")],
    doc=__doc__,
)


@scatter.infer_shape
def _(ctx):
    _check_index_shape(ctx, "Ids")
    x, upd = ctx.input_shape("X"), ctx.input_shape("Updates")
    ctx.enforce(len(upd) == len(x) and all(a < 0 or b < 0 or a == b
                                             for a, b in zip(upd[1:], x[1:], strict=True)), lambda:
                f"Updates must be [N] + X.shape[1:], got Updates {list(upd)} for X {list(x)}")
    ctx.set_output("Out", x, ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")


def _winners(ids: np.ndarray) -> np.ndarray:
    """For each position, whether it is the last occurrence of its id."""
    last = np.zeros(ids.size, dtype=bool)
    _, first_in_reversed = np.unique(ids[::-1], return_index=True)
    last[ids.size - 1 - first_in_reversed] = True
    return last


@scatter.kernel(dtypes=NUMERIC)
def scatter_kernel(attrs, x, ids, updates):
    ids = _ids("scatter", ids, x.shape[0])
    out = x.copy()
    if attrs["overwrite"]:
        win = _winners(ids)
        out[ids[win]] = updates[win]
    else:
        out[ids] = 0
        np.add.at(out, ids, updates)
    return out


@scatter.grad_maker
def _(g):
    return [g.grad_op("scatter_grad",
                      inputs={"Ids": g.input("Ids"), "Updates": g.input("Updates"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X"),
                               "Updates@GRAD": g.input_grad("Updates")},
                      attrs={"overwrite": g.attr("overwrite")})]


scatter_grad = register_op(
    "scatter_grad",
    inputs=[In("Ids"), In("Updates", no_need_buffer=True), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True), Out("Updates@GRAD", dispensable=True)],
    attrs=[Attr("overwrite", "bool", True)],
    key_inputs=["Out@GRAD"],
    doc="dX = dOut with the Ids rows zeroed; dUpdates = dOut[Ids] (winners only if overwrite).",
)


@scatter_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("Out@GRAD"), ctx.input_dtype("Out@GRAD"))
    ctx.set_output("Updates@GRAD", ctx.input_shape("Updates"), ctx.input_dtype("Out@GRAD"))


@scatter_grad.kernel(dtypes=FLOATS)
def scatter_grad_kernel(attrs, ids, updates, dout):
    ids = _ids("scatter_grad", ids, dout.shape[0])
    dx = dout.copy()
    dx[ids] = 0
    dupd = dout.take(ids, axis=0)
    if attrs["overwrite"]:
        dupd[~_winners(ids)] = 0
    return dx, dupd


# -- scatter_nd_add --------------------------------------------------------------------------

scatter_nd_add = register_op(
    "scatter_nd_add",
    inputs=[In("X"), In("Index", "int32/int64 [..., k]"),
            In("Updates", "Index.shape[:-1] + X.shape[k:]")],
    outputs=[Out("Out", "X's shape")],
    doc=__doc__,
)


@scatter_nd_add.infer_shape
def _(ctx):
    want = _nd_out_shape(ctx, "X", "Index")
    upd = tuple(ctx.input_shape("Updates"))
    ctx.enforce(len(upd) == len(want) and all(a < 0 or b < 0 or a == b
                                                for a, b in zip(upd, want, strict=True)), lambda:
                f"Updates must have shape Index.shape[:-1] + X.shape[k:] = {list(want)}, got "
                f"{list(upd)}")
    ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))


@scatter_nd_add.kernel(dtypes=NUMERIC + (np.dtype(np.uint8),))
def scatter_nd_add_kernel(attrs, x, index, updates):
    out = x.copy()
    _add_at("scatter_nd_add", out, index, updates)
    return out


@scatter_nd_add.grad_maker
def _(g):
    ops = []
    if g.input_grad("X"):
        ops.append(g.grad_op("scale", inputs={"X": g.output_grad("Out")},
                             outputs={"Out": g.input_grad("X")}, attrs={"scale": 1.0}))
    if g.input_grad("Updates"):
        ops.append(g.grad_op("gather_nd", inputs={"X": g.output_grad("Out"),
                                                  "Index": g.input("Index")},
                             outputs={"Out": g.input_grad("Updates")}))
    return ops


# -- where_index -----------------------------------------------------------------------------

where_index = register_op(
    "where_index",
    inputs=[In("Condition", "a bool tensor")],
    outputs=[Out("Out", "int64 [n, rank]: the coordinates of the true elements, row-major")],
    doc=__doc__,
)


@where_index.infer_shape
def _(ctx):
    ctx.set_output("Out", (-1, len(ctx.input_shape("Condition"))), np.int64)


@where_index.kernel(dtypes=ALL_DTYPES)
def where_index_kernel(attrs, condition):
    return np.argwhere(condition.astype(bool)).astype(np.int64)

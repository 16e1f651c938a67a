"""Indexing ops: each output element is read from a place an index tensor names.

    take_along_axis  Result = np.take_along_axis(Input, Index, Axis)
    index_sample     Out[n, k] = X[n, Index[n, k]]; dX scatter-adds dOut back
    repeat_interleave  Out = X with each entry along dim repeated Repeats times (or
                     RepeatsTensor[i] times for entry i); dim -1 with a 1-D X, as usual
    multiplex        Out[i] = X[Ids[i]][i]; gradient routed to the chosen input
    shard_index      x - shard_id * shard_size if x falls in shard shard_id, else ignore_value

index_sample and multiplex have gradients.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.limits import check_allocation
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import ALL_DTYPES, FLOATS, INTS, NUMERIC, Attr, In, Out, register_op
from paddle_ir.ops.simple_op import register_simple

# --- take_along_axis, index_sample ------------------------------------------------------

take_along_axis = register_op(
    "take_along_axis", inputs=[In("Input"), In("Index", "int, Input's rank")],
    outputs=[Out("Result", "Index's shape")],
    attrs=[Attr("Axis", "int", 0, "the dim indexed")], key_inputs=["Input"], doc=__doc__)


@take_along_axis.infer_shape
def _(ctx):
    x, idx = ctx.input_shape("Input"), ctx.input_shape("Index")
    ctx.enforce(len(x) == len(idx), lambda: f"Index {shape_str(idx)} must have Input's rank "
                                    f"{shape_str(x)}")
    ctx.enforce(np.dtype(ctx.input_dtype("Index")) in INTS, "Index must be int32 or int64")
    ctx.set_output("Result", idx, ctx.input_dtype("Input"))


@take_along_axis.kernel(dtypes=ALL_DTYPES)
def take_along_axis_kernel(attrs, x, index):
    axis = attrs["Axis"] % x.ndim
    shape = list(np.broadcast_shapes(x.shape[:axis] + (1,) + x.shape[axis + 1:], index.shape))
    shape[axis] = index.shape[axis]
    return np.take_along_axis(x, np.broadcast_to(index, shape).astype(np.int64), axis=axis)


index_sample = register_op(
    "index_sample", inputs=[In("X", "[N, M]"), In("Index", "int [N, K]")],
    outputs=[Out("Out", "[N, K]")], doc=__doc__)


@index_sample.infer_shape
def _(ctx):
    x, idx = ctx.input_shape("X"), ctx.input_shape("Index")
    ctx.enforce(len(x) == 2 and len(idx) == 2,
                lambda: f"X and Index must be 2-D, got {shape_str(x)} and {shape_str(idx)}")
    ctx.enforce(x[0] < 0 or idx[0] < 0 or x[0] == idx[0], lambda:
                f"X and Index must have the same rows, got {shape_str(x)} and {shape_str(idx)}")
    ctx.enforce(np.dtype(ctx.input_dtype("Index")) in INTS, "Index must be int32 or int64")
    ctx.set_output("Out", idx, ctx.input_dtype("X"))


def _sample_index(op: str, index: np.ndarray, x_shape) -> np.ndarray:
    index = np.asarray(index).astype(np.int64)
    rows, width = x_shape
    if index.shape[0] != rows:
        raise KernelError(f"{op}: Index has {index.shape[0]} rows but X has {rows}")
    if index.size and (index.min() < 0 or index.max() >= width):
        bad = index.reshape(-1)[np.flatnonzero((index < 0) | (index >= width))[0]]
        raise KernelError(f"{op}: Index holds {int(bad)}, outside X's columns [0, {width})")
    return index


@index_sample.kernel(dtypes=NUMERIC)
def index_sample_kernel(attrs, x, index):
    return np.take_along_axis(x, _sample_index("index_sample", index, x.shape), axis=1)


@index_sample.grad_maker
def _(g):
    return [g.grad_op("index_sample_grad",
                      inputs={"X": g.input("X"), "Index": g.input("Index"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")})]


index_sample_grad = register_op(
    "index_sample_grad",
    inputs=[In("X", no_need_buffer=True), In("Index"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    key_inputs=["Out@GRAD"],
    doc="dX[n, Index[n, k]] += dOut[n, k] (a column sampled twice sums both).",
)


@index_sample_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("Out@GRAD"))


@index_sample_grad.kernel(dtypes=FLOATS)
def index_sample_grad_kernel(attrs, x, index, dout):
    index = _sample_index("index_sample_grad", index, x.shape)
    dx = np.zeros(x.shape, dtype=dout.dtype)
    np.add.at(dx, (np.arange(x.shape[0])[:, None], index), dout)
    return dx


# --- repeat_interleave ------------------------------------------------------------------

repeat_interleave = register_op(
    "repeat_interleave",
    inputs=[In("X"), In("RepeatsTensor", "int [X.shape[dim]]: per-entry repeats",
                        dispensable=True)],
    outputs=[Out("Out", "X repeated along dim")],
    attrs=[Attr("Repeats", "int", 0, "the repeats of every entry"),
           Attr("dim", "int", 0, "the dim repeated"),
           Attr("output_size", "long", -1, "a size hint; unused")],
    doc=__doc__,
)


@repeat_interleave.infer_shape
def _(ctx):
    x = list(ctx.input_shape("X"))
    rank = max(len(x), 1)
    dim = ctx.attr("dim")
    ctx.enforce(-rank <= dim < rank, lambda: f"dim must be in [{-rank}, {rank}), got {dim}")
    if x:
        n = ctx.attr("Repeats")
        x[dim % len(x)] = -1 if ctx.has_input("RepeatsTensor") or x[dim % len(x)] < 0 \
            else x[dim % len(x)] * n
    ctx.set_output("Out", x, ctx.input_dtype("X"))


@repeat_interleave.kernel(dtypes=ALL_DTYPES)
def repeat_interleave_kernel(attrs, x, repeats):
    reps = attrs["Repeats"] if repeats is None else np.asarray(repeats).reshape(-1)
    axis = attrs["dim"] % max(x.ndim, 1)
    if x.ndim:  # the output's length along `axis`, before np.repeat allocates it
        length = int(np.sum(reps, dtype=object)) if np.ndim(reps) else int(reps) * x.shape[axis]
        out = list(x.shape)
        out[axis] = max(length, 0)
        check_allocation("repeat_interleave", out, x.dtype, "its Repeats attribute"
                         if repeats is None else "its RepeatsTensor values")
    return np.repeat(x, reps, axis=axis)


# --- multiplex --------------------------------------------------------------------------

def _infer_multiplex(ctx):
    shapes = ctx.input_shapes("X")
    ctx.enforce(len(shapes) >= 2, lambda: f"multiplex needs at least 2 inputs, got {len(shapes)}")
    ctx.enforce(all(list(s) == list(shapes[0]) for s in shapes),
                lambda: f"every X must have one shape, got {[list(s) for s in shapes]}")
    ctx.enforce(ctx.input_dtype("Ids") in INTS, "Ids must be int32 or int64")
    ctx.set_output("Out", shapes[0], ctx.input_dtype("X"))


def _choice(ids, count, rows):
    k = ids.reshape(-1).astype(np.int64)
    if k.size != rows or (k.size and (k.min() < 0 or k.max() >= count)):
        raise KernelError(f"multiplex: Ids must hold {rows} indices in [0, {count})")
    return k


def _multiplex(attrs, ids, xs):
    stacked = np.stack(xs)
    k = _choice(ids, len(xs), stacked.shape[1])
    return stacked[k, np.arange(k.size)]


def _multiplex_grad(attrs, ids, xs, dout):
    k = _choice(ids, len(xs), dout.shape[0])
    return [np.where((k == j).reshape((-1,) + (1,) * (dout.ndim - 1)), dout, 0).astype(
        dout.dtype) for j in range(len(xs))]


register_simple(
    "multiplex", [In("Ids", "[N, 1] int: which X each row takes"),
                  In("X", "the candidates", duplicable=True)],
    [Out("Out", "X[0]'s shape")], [], _infer_multiplex, _multiplex, backward=_multiplex_grad,
    wrt=["X"], key_input="X", doc=__doc__)


# --- shard_index ------------------------------------------------------------------------

def _infer_shard(ctx):
    n, s, i = ctx.attr("index_num"), ctx.attr("nshards"), ctx.attr("shard_id")
    ctx.enforce(n > 0 and s > 0 and 0 <= i < s,
                lambda: f"need index_num > 0, nshards > 0 and 0 <= shard_id < nshards, got "
                f"{n}, {s}, {i}")
    ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")


def _shard(attrs, x):
    size = (attrs["index_num"] + attrs["nshards"] - 1) // attrs["nshards"]
    mine = x // size == attrs["shard_id"]
    return np.where(mine, x - attrs["shard_id"] * size, attrs["ignore_value"]).astype(x.dtype)


register_simple(
    "shard_index", [In("X", "int ids")], [Out("Out", "ids local to the shard")],
    [Attr("index_num", "int", 0, "the id range"), Attr("nshards", "int", 0, "shards"),
     Attr("shard_id", "int", 0, "this shard"), Attr("ignore_value", "int", -1, "elsewhere")],
    _infer_shard, _shard, dtypes=INTS, doc=__doc__)

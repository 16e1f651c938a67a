"""sequence_pool (+ _grad): one row per sequence of X's last LoD level.

For a sequence s of rows x_1..x_n (n = len(s)):

    SUM      Out[s] = sum_j x_j
    AVERAGE  Out[s] = sum_j x_j / n
    SQRT     Out[s] = sum_j x_j / sqrt(n)
    MAX      Out[s] = max_j x_j (per feature); MaxIndex[s] = the first row holding it
    LAST     Out[s] = x_n
    FIRST    Out[s] = x_1

An empty sequence gives `pad_value` (and MaxIndex -1). Out drops X's last
LoD level and keeps the others: pooling the words of a 2-level
(articles > sentences > words) batch gives one row per sentence, grouped in
articles. MaxIndex holds absolute row numbers of X (int32), as in Paddle; for
the other pool types, and for MAX with is_test (inference needs no gradient,
and finding the rows costs three times the max itself), it is left empty ([0]).

Gradients: SUM dX_j = dOut[s]; AVERAGE dOut[s] / n; SQRT dOut[s] / sqrt(n);
MAX, FIRST, LAST route dOut[s] to the chosen row (per feature for MAX).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.segments import segment_sum
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.sequence_ops.sequence_common import (
    as_rows,
    lengths_of,
    require_lod,
    segment_argmax,
    segment_extreme,
)

POOL_TYPES = ("AVERAGE", "SUM", "SQRT", "MAX", "LAST", "FIRST")

sequence_pool = register_op(
    "sequence_pool",
    inputs=[In("X", "a LoDTensor with at least one LoD level, [rows, ...]")],
    outputs=[Out("Out", "[num_sequences, ...], X's LoD without its last level"),
             Out("MaxIndex", "int32, the pooled row per feature (MAX only)", dispensable=True)],
    attrs=[
        Attr("pooltype", "string", "AVERAGE", "one of " + ", ".join(POOL_TYPES)),
        Attr("is_test", "bool", False, "inference mode: Out is the same, MaxIndex is empty"),
        Attr("pad_value", "float", 0.0, "the output row of an empty sequence"),
    ],
    doc=__doc__,
)


def _check_pooltype(ctx) -> str:
    pooltype = ctx.attr("pooltype")
    ctx.enforce(pooltype in POOL_TYPES,
                lambda: f"pooltype must be one of {', '.join(POOL_TYPES)}, got {pooltype!r}",
                hint="the sequence_pool layer takes pool_type in any case, e.g. 'max'")
    return pooltype


@sequence_pool.infer_shape
def _(ctx):
    pooltype = _check_pooltype(ctx)
    level = require_lod(ctx, "X")
    x_shape = ctx.input_shape("X")
    ctx.enforce(len(x_shape) >= 1, "X must have at least one dim (its rows)")
    out_shape = (-1,) + tuple(x_shape[1:])
    ctx.set_output("Out", out_shape, ctx.input_dtype("X"))
    ctx.set_output_lod_level("Out", level - 1)
    with_index = pooltype == "MAX" and not ctx.attr("is_test")
    ctx.set_output("MaxIndex", out_shape if with_index else (0,), np.int32)
    ctx.set_output_lod_level("MaxIndex", 0)


def _pad_empty(out: np.ndarray, lengths: np.ndarray, pad_value) -> np.ndarray:
    empty = lengths == 0
    if empty.any():
        out[empty] = pad_value
    return out


def _inverse_size(lengths: np.ndarray, pooltype: str, dtype) -> np.ndarray:
    """1/n (AVERAGE) or 1/sqrt(n) (SQRT) per sequence; empty sequences get 1 (unused)."""
    size = np.maximum(lengths, 1).astype(dtype)
    return 1 / (size if pooltype == "AVERAGE" else np.sqrt(size))


def pool(x: np.ndarray, offsets: np.ndarray, pooltype: str, pad_value,
         with_index: bool = True):
    """(Out, MaxIndex or None) for the segments `offsets` of x's rows."""
    lengths = lengths_of(offsets)
    n = lengths.size
    pad = np.asarray(pad_value, dtype=np.float32).astype(x.dtype)
    if pooltype == "MAX":
        if with_index:
            out, index = segment_argmax(x, offsets)
        else:
            out, index = segment_extreme(x, offsets), None
        return _pad_empty(out, lengths, pad), index
    if pooltype in ("SUM", "AVERAGE", "SQRT"):
        weights = None
        if pooltype != "SUM":
            scale = _inverse_size(lengths, pooltype, x.dtype)
            weights = np.repeat(scale, lengths)
        out = segment_sum(x, offsets, weights=weights)
        return _pad_empty(out, lengths, pad), None
    nonempty = lengths > 0
    rows = offsets[:-1] if pooltype == "FIRST" else offsets[1:] - 1
    out = np.empty((n,) + x.shape[1:], dtype=x.dtype)
    out[nonempty] = x[rows[nonempty]]
    out[~nonempty] = pad
    return out, None


@sequence_pool.kernel(dtypes=FLOATS, lod=True)
def sequence_pool_kernel(attrs, x: LoDTensor):
    offsets = x.offsets
    out, index = pool(x.numpy(), offsets[-1], attrs["pooltype"], attrs["pad_value"],
                      with_index=not attrs["is_test"])
    if index is None:
        index = np.zeros(0, dtype=np.int32)
    return LoDTensor.unchecked(out, offsets[:-1]), index


@sequence_pool.grad_maker
def _(g):
    inputs = {"X": g.input("X"), "Out@GRAD": g.output_grad("Out")}
    if g.attr("pooltype") == "MAX":
        inputs["MaxIndex"] = g.output("MaxIndex")
    return [g.grad_op("sequence_pool_grad", inputs=inputs,
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={"pooltype": g.attr("pooltype"), "is_test": g.attr("is_test"),
                             "pad_value": g.attr("pad_value")})]


sequence_pool_grad = register_op(
    "sequence_pool_grad",
    inputs=[In("X", "for its shape and LoD", no_need_buffer=True), In("Out@GRAD"),
            In("MaxIndex", dispensable=True)],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("pooltype", "string", "AVERAGE"), Attr("is_test", "bool", False),
           Attr("pad_value", "float", 0.0)],
    key_inputs=["Out@GRAD"],
    doc="dX: dOut of each sequence spread back over its rows as the pool type says.",
)


@sequence_pool_grad.infer_shape
def _(ctx):
    pooltype = _check_pooltype(ctx)
    require_lod(ctx, "X")
    if pooltype == "MAX":
        ctx.enforce(ctx.has_input("MaxIndex") and not ctx.attr("is_test"),
                    "MAX pooling's gradient needs Input(MaxIndex) from a forward op run with "
                    "is_test=False", hint="build the training program with is_test=False")
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("Out@GRAD"))
    ctx.share_lod("X", "X@GRAD")


def pool_grad(x_shape, offsets: np.ndarray, dout: np.ndarray, pooltype: str,
              max_index: np.ndarray | None) -> np.ndarray:
    lengths = lengths_of(offsets)
    dtype = dout.dtype
    if pooltype in ("SUM", "AVERAGE", "SQRT"):
        d = dout
        if pooltype != "SUM":
            scale = _inverse_size(lengths, pooltype, dtype)
            d = dout * scale.reshape((-1,) + (1,) * (dout.ndim - 1))
        return np.repeat(d, lengths, axis=0).reshape(x_shape)
    dx = np.zeros(x_shape, dtype=dtype)
    if pooltype == "MAX":
        dx2, index2, dout2 = as_rows(dx), as_rows(max_index), as_rows(dout)
        rows, cols = np.nonzero(index2 >= 0)
        dx2[index2[rows, cols], cols] = dout2[rows, cols]
        return dx
    nonempty = lengths > 0
    rows = offsets[:-1] if pooltype == "FIRST" else offsets[1:] - 1
    dx[rows[nonempty]] = dout[nonempty]
    return dx


@sequence_pool_grad.kernel(dtypes=FLOATS, lod=True)
def sequence_pool_grad_kernel(attrs, x: LoDTensor, dout: LoDTensor, max_index):
    index = None if max_index is None else max_index.numpy()
    dx = pool_grad(x.shape, x.offsets[-1], dout.numpy(), attrs["pooltype"], index)
    return LoDTensor.unchecked(dx, x.offsets)

"""Paddle's broadcasting rule for elementwise ops, shared by their rules and kernels.

The operand of lower rank (Y, or X when X's rank is the lower: Paddle's
GetBroadcastDimsArrays) has its dims line up with the other's starting at
`axis`; axis = -1 aligns them at the end, which is numpy's rule (then either
side may broadcast). Unknown dims (-1) at build time stay unknown unless the
other side fixes them.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str


def aligned_y_shape(x_ndim: int, y_shape: tuple[int, ...], axis: int) -> tuple[int, ...] | None:
    """Y's shape padded with 1s to X's rank, or None if it cannot be aligned at `axis`."""
    y_ndim = len(y_shape)
    if axis == -1:
        axis = x_ndim - y_ndim
    if axis < 0 or axis + y_ndim > x_ndim:
        return None
    return (1,) * axis + tuple(y_shape) + (1,) * (x_ndim - axis - y_ndim)


def broadcast_shapes(x_shape, y_shape, axis: int) -> tuple[int, ...] | str:
    """The output shape, or a message saying why the shapes do not broadcast."""
    x_shape, y_shape = tuple(x_shape), tuple(y_shape)
    if len(y_shape) <= len(x_shape):
        y_aligned = aligned_y_shape(len(x_shape), y_shape, axis)
        if y_aligned is None:
            return (f"Y of rank {len(y_shape)} cannot be aligned with X of rank {len(x_shape)} "
                    f"at axis {axis}")
        x_aligned = x_shape
    else:  # X is the smaller one: it is aligned into Y at axis (at the end for -1)
        x_aligned = aligned_y_shape(len(y_shape), x_shape, axis)
        if x_aligned is None:
            return (f"X of rank {len(x_shape)} cannot be aligned with Y of rank {len(y_shape)} "
                    f"at axis {axis}")
        y_aligned = y_shape
    out = []
    for i, (a, b) in enumerate(zip(x_aligned, y_aligned, strict=True)):
        if a == b or b == 1:
            out.append(a)
        elif a == 1:
            out.append(b)
        elif a < 0 or b < 0:
            # the unknown side is 1 or the known one, unless the run refuses it: a known
            # dim above 1 is the output's (Fluid 1.7 keeps X's dims: XLNet's attention
            # score minus a mask of unknown shape stays [qlen, klen, -1, n_head])
            known = max(a, b)
            out.append(known if known > 1 else -1)
        else:
            return (f"X.shape={list(x_shape)} and Y.shape={list(y_shape)} do not broadcast at "
                    f"axis {axis}: dim {i} is {a} in X and {b} in Y")
    return tuple(out)


def infer_binary(ctx, out_dtype=None) -> None:
    """The shape rule of Out = X op Y with Y aligned at `axis` (the elementwise ops and the
    comparisons): X and Y of one dtype; Out of X's dtype (or `out_dtype`) and X's LoD."""
    out = broadcast_shapes(ctx.input_shape("X"), ctx.input_shape("Y"), ctx.attr("axis"))
    if isinstance(out, str):
        ctx.fail(out)
    x_dtype, y_dtype = ctx.input_dtype("X"), ctx.input_dtype("Y")
    ctx.enforce(x_dtype == y_dtype,
                lambda: f"X and Y must have the same dtype, got X {x_dtype} and Y {y_dtype}",
                hint="insert a cast op")
    ctx.set_output("Out", out, x_dtype if out_dtype is None else out_dtype)
    ctx.share_lod("X", "Out")


def infer_numpy_broadcast(ctx, slots) -> list[int]:
    """The shape numpy broadcasting gives the inputs `slots` (Paddle 2.x ops: where, atan2,
    lerp, masked_select), -1 where unknown; a shape rule's error if they do not broadcast."""
    shapes = [ctx.input_shape(s) for s in slots]
    rank = max(len(s) for s in shapes)
    out = []
    for k in range(rank):
        dims = [s[k - rank + len(s)] for s in shapes if k - rank + len(s) >= 0]
        known = {d for d in dims if d > 1}
        ctx.enforce(len(known) <= 1, "the shapes " + ", ".join(shape_str(s) for s in shapes)
                    + " do not broadcast")
        out.append(known.pop() if known else (-1 if -1 in dims else 1))
    return out


def align_y(x: np.ndarray, y: np.ndarray, axis: int) -> np.ndarray:
    """Y reshaped so that numpy broadcasting applies Paddle's `axis` rule (X's rank at
    least Y's; see align_pair for either)."""
    if axis == -1 or y.ndim >= x.ndim:
        return y
    return y.reshape(aligned_y_shape(x.ndim, y.shape, axis))


def align_pair(x: np.ndarray, y: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """X and Y reshaped so that numpy broadcasting applies Paddle's `axis` rule, whichever
    has the lower rank."""
    if axis == -1 or y.ndim == x.ndim:
        return x, y
    if y.ndim < x.ndim:
        return x, y.reshape(aligned_y_shape(x.ndim, y.shape, axis))
    return x.reshape(aligned_y_shape(y.ndim, x.shape, axis)), y


def reduce_to_shape(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum a broadcast gradient back down to `shape` (numpy-aligned at the end)."""
    if grad.shape == tuple(shape):
        return grad
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and grad.shape[lead + i] != 1)
    return grad.sum(axis=axes, keepdims=False).reshape(shape) if axes else grad.reshape(shape)

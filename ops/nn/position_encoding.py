"""add_position_encoding (+ _grad): Out = alpha X + beta PE, with
PE[t, k] = sin(t / 10000^(k / (h - 1))), PE[t, h + k] = cos(same), h = D / 2; t restarts per
sequence with a LoD.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import same_as_input
from paddle_ir.ops.registry import Attr, In, Out
from paddle_ir.ops.sequence_ops.sequence_common import lengths_of
from paddle_ir.ops.simple_op import register_simple


def _positions(x: LoDTensor) -> tuple[np.ndarray, tuple]:
    """(time index of each row of x viewed as [rows, D], reshape) for dense [B, T, D] or LoD."""
    arr = x.numpy()
    if x.lod_level:
        offsets = x.offsets[-1]
        t = np.arange(arr.shape[0]) - np.repeat(offsets[:-1], lengths_of(offsets))
        return t, arr.shape
    b, steps = arr.shape[0], arr.shape[1]
    return np.tile(np.arange(steps), b), arr.shape


def _encoding(t: np.ndarray, d: int) -> np.ndarray:
    half = d // 2
    k = np.arange(half)
    denom = np.power(10000.0, k / (half - 1)) if half > 1 else np.full(half, 10000.0)
    angle = t[:, None] / denom[None, :]
    return np.concatenate([np.sin(angle), np.cos(angle)], axis=1)


def _ape(attrs, x: LoDTensor) -> LoDTensor:
    t, shape = _positions(x)
    arr = x.numpy()
    flat = arr.reshape(t.size, shape[-1])
    out = attrs["alpha"] * flat + attrs["beta"] * _encoding(t, shape[-1])
    return LoDTensor.unchecked(out.reshape(shape).astype(arr.dtype), x.offsets)


def _infer_ape(ctx):
    shape = ctx.input_shape("X")
    ctx.enforce(shape[-1] < 0 or shape[-1] % 2 == 0,
                lambda: f"the last dim of X must be even, got {list(shape)}")
    ctx.enforce(len(shape) == 3 or (len(shape) == 2 and ctx.input_lod_level("X") > 0),
                lambda: f"X must be [B, T, D], or [rows, D] with a LoD, got {list(shape)}")
    same_as_input(ctx)


register_simple(
    "add_position_encoding", [In("X", "[B, T, D] or a LoDTensor [rows, D]")],
    [Out("Out", "X's shape and LoD")],
    [Attr("alpha", "float", 1.0, "X's weight"), Attr("beta", "float", 1.0, "PE's weight")],
    _infer_ape, _ape,
    backward=lambda attrs, x, dout: LoDTensor.unchecked(
        (attrs["alpha"] * dout.numpy()).astype(dout.dtype), x.offsets),
    wrt=["X"], lod=True, doc=__doc__)

"""Time-axis ops (+ grads):

    temporal_shift   [N T, C, H, W]: the first C r channels shift one step back in time, the
                     next C r one step forward, zeros at the ends
    row_conv         Out[t] = sum_j X[t + j] Filter[j] within each sequence (lookahead)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import same_as_input
from paddle_ir.ops.registry import Attr, In, Out
from paddle_ir.ops.sequence_ops.sequence_common import require_lod, segment_ids
from paddle_ir.ops.simple_op import register_simple

# -- temporal_shift --------------------------------------------------------------------------

def _shift(x, seg, ratio, sign):
    n_t, c = x.shape[0], x.shape[1]
    v = x.reshape((n_t // seg, seg) + x.shape[1:])
    c1, c2 = int(c * ratio), int(c * 2 * ratio)
    out = np.zeros_like(v)
    out[:, :, c2:] = v[:, :, c2:]
    if sign > 0:  # forward: channels [0, c1) take t - 1, [c1, c2) take t + 1
        out[:, 1:, :c1] = v[:, :-1, :c1]
        out[:, :-1, c1:c2] = v[:, 1:, c1:c2]
    else:  # the adjoint moves them back
        out[:, :-1, :c1] = v[:, 1:, :c1]
        out[:, 1:, c1:c2] = v[:, :-1, c1:c2]
    return out.reshape(x.shape)


def _infer_tshift(ctx):
    shape = ctx.input_shape("X")
    seg = ctx.attr("seg_num")
    ctx.enforce(len(shape) == 4, lambda: f"X must be [N T, C, H, W], got {list(shape)}")
    ctx.enforce(seg >= 1 and (shape[0] < 0 or shape[0] % seg == 0),
                lambda: f"X.shape[0] must be a multiple of seg_num {seg}, got {list(shape)}")
    ctx.enforce(0 < ctx.attr("shift_ratio") < 0.5, "shift_ratio must be in (0, 0.5)")
    same_as_input(ctx)


register_simple(
    "temporal_shift", [In("X", "[N T, C, H, W]")], [Out("Out", "X's shape")],
    [Attr("seg_num", "int", 1, "T, the segments per video"),
     Attr("shift_ratio", "float", 0.25, "the fraction of channels shifted each way")],
    _infer_tshift, lambda attrs, x: _shift(x, attrs["seg_num"], attrs["shift_ratio"], 1),
    backward=lambda attrs, x, dout: _shift(dout, attrs["seg_num"], attrs["shift_ratio"], -1),
    wrt=["X"], doc=__doc__)


# -- row_conv --------------------------------------------------------------------------------

def _infer_row_conv(ctx):
    require_lod(ctx, "X")
    x, f = ctx.input_shape("X"), ctx.input_shape("Filter")
    ctx.enforce(len(x) == 2 and len(f) == 2 and (x[1] < 0 or f[1] < 0 or x[1] == f[1]),
                lambda: f"X [T, D] and Filter [future + 1, D] expected, got {list(x)}, {list(f)}")
    same_as_input(ctx)


def _row_conv_terms(x: LoDTensor, k: int):
    """For lookahead j in [0, k): (source rows, valid mask) per row."""
    offsets = x.offsets[-1]
    rows = np.arange(x.shape[0])
    end = offsets[1:][segment_ids(offsets)]
    for j in range(k):
        src = rows + j
        yield j, np.minimum(src, max(x.shape[0] - 1, 0)), src < end


def _row_conv(attrs, x: LoDTensor, filt: LoDTensor) -> LoDTensor:
    arr, f = x.numpy(), filt.numpy()
    out = np.zeros_like(arr)
    for j, src, valid in _row_conv_terms(x, f.shape[0]):
        out += np.where(valid[:, None], arr[src], 0) * f[j]
    return LoDTensor.unchecked(out, x.offsets)


def _row_conv_grad(attrs, x: LoDTensor, filt: LoDTensor, dout: LoDTensor):
    arr, f, d = x.numpy(), filt.numpy(), dout.numpy()
    dx, df = np.zeros_like(arr), np.zeros_like(f)
    for j, src, valid in _row_conv_terms(x, f.shape[0]):
        contrib = np.where(valid[:, None], d, 0)
        np.add.at(dx, src[valid], (contrib * f[j])[valid])
        df[j] = (contrib * arr[src]).sum(0)
    return LoDTensor.unchecked(dx, x.offsets), LoDTensor.unchecked(df)


register_simple(
    "row_conv", [In("X", "[T, D] with a LoD"), In("Filter", "[future_context + 1, D]")],
    [Out("Out", "X's shape and LoD")], [], _infer_row_conv, _row_conv, backward=_row_conv_grad,
    wrt=["X", "Filter"], lod=True, doc=__doc__)

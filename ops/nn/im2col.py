"""unfold and im2sequence (+ grads), over one im2col / col2im written here:

    unfold       [N, C, H, W] -> [N, C kh kw, L]: every (dilated, strided, padded) kh x kw
                 block as a column; the gradient col2im adds each column back where it came from
    im2sequence  each image's blocks as one sequence of rows [oh ow, C kh kw] (a LoDTensor)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.limits import check_allocation
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.registry import Attr, In, Out
from paddle_ir.ops.sequence_ops.sequence_common import offsets_of
from paddle_ir.ops.simple_op import register_simple

# -- unfold / im2sequence --------------------------------------------------------------------

def _pair(v):
    return list(v) * (2 // len(v)) if len(v) in (1, 2) else list(v)


def _out_size(size, k, stride, pad0, pad1, dilation):
    return (size + pad0 + pad1 - (dilation * (k - 1) + 1)) // stride + 1


def _im2col_index(h, w, kh, kw, sh, sw, pads, dh, dw, op_type):
    """(rows, cols) into the padded image for [kh kw, oh ow] patch positions, and (oh, ow)."""
    oh = _out_size(h, kh, sh, pads[0], pads[2], dh)
    ow = _out_size(w, kw, sw, pads[1], pads[3], dw)
    # The paddings size the patch index and the padded image (im2sequence's output rows
    # are not known to its InferShape): checked before either is made.
    check_allocation(op_type, (kh * kw, max(oh, 0) * max(ow, 0)), np.int64,
                     "its kernels, strides and paddings")
    check_allocation(op_type, (h + pads[0] + pads[2], w + pads[1] + pads[3]), np.float64,
                     "its paddings")
    ki, kj = np.meshgrid(np.arange(kh) * dh, np.arange(kw) * dw, indexing="ij")
    oi, oj = np.meshgrid(np.arange(oh) * sh, np.arange(ow) * sw, indexing="ij")
    rows = ki.reshape(-1, 1) + oi.reshape(1, -1)
    cols = kj.reshape(-1, 1) + oj.reshape(1, -1)
    return rows, cols, oh, ow


def im2col(x, kernel, strides, pads, dilations, op_type: str):
    """[N, C, H, W] -> [N, C kh kw, oh ow] with pads [top, left, bottom, right]."""
    n, c, h, w = x.shape
    rows, cols, oh, ow = _im2col_index(h, w, *kernel, *strides, pads, *dilations, op_type)
    check_allocation(op_type, (n, c * rows.shape[0], oh * ow), x.dtype,
                     "its kernels, strides and paddings")
    padded = np.pad(x, [(0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])])
    patches = padded[:, :, rows, cols]  # [N, C, kh kw, oh ow]
    return patches.reshape(n, c * rows.shape[0], oh * ow), (oh, ow)


def col2im(cols, x_shape, kernel, strides, pads, dilations, op_type: str):
    n, c, h, w = x_shape
    rows, colsi, oh, ow = _im2col_index(h, w, *kernel, *strides, pads, *dilations, op_type)
    hp, wp = h + pads[0] + pads[2], w + pads[1] + pads[3]
    flat = (rows * wp + colsi).reshape(-1)
    grad = np.zeros((n, c, hp * wp), dtype=cols.dtype)
    vals = cols.reshape(n, c, -1)
    for_each = np.broadcast_to(flat, vals.shape)
    np.add.at(grad, (np.arange(n)[:, None, None], np.arange(c)[None, :, None], for_each), vals)
    return grad.reshape(n, c, hp, wp)[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + w]


def _unfold_args(attrs):
    pads = list(attrs["paddings"])
    if len(pads) == 2:
        pads = [pads[0], pads[1], pads[0], pads[1]]
    return (_pair(attrs["kernel_sizes"]), _pair(attrs["strides"]), pads,
            _pair(attrs["dilations"]))


def _infer_unfold(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) == 4, f"X must be [N, C, H, W], got {list(x)}")
    ctx.enforce_positive("kernel_sizes", "strides", "dilations")
    attrs = {k: ctx.attr(k) for k in ("kernel_sizes", "strides", "paddings", "dilations")}
    (kh, kw), (sh, sw), pads, (dh, dw) = _unfold_args(attrs)
    if all(d >= 0 for d in x[2:]):
        oh = _out_size(x[2], kh, sh, pads[0], pads[2], dh)
        ow = _out_size(x[3], kw, sw, pads[1], pads[3], dw)
        ctx.enforce(oh > 0 and ow > 0, f"the kernel does not fit X {list(x)}")
        blocks = oh * ow
    else:
        blocks = -1
    ctx.set_output("Y", (x[0], x[1] * kh * kw if x[1] >= 0 else -1, blocks),
                   ctx.input_dtype("X"))


_UNFOLD_ATTRS = [Attr("kernel_sizes", "ints", [1, 1], "[kh, kw]"),
                 Attr("strides", "ints", [1, 1], "[sh, sw]"),
                 Attr("paddings", "ints", [0, 0, 0, 0], "[top, left, bottom, right]"),
                 Attr("dilations", "ints", [1, 1], "[dh, dw]")]

register_simple(
    "unfold", [In("X", "[N, C, H, W]")], [Out("Y", "[N, C kh kw, L]")], _UNFOLD_ATTRS,
    _infer_unfold, lambda attrs, x: im2col(x, *_unfold_args(attrs), "unfold")[0],
    backward=lambda attrs, x, dy: col2im(dy, x.shape, *_unfold_args(attrs), "unfold_grad"),
    wrt=["X"], out_slot="Y", doc=__doc__)


def _im2seq_args(attrs):
    pads = list(attrs["paddings"])  # Paddle: [up, left, down, right]
    return _pair(attrs["kernels"]), _pair(attrs["strides"]), pads, [1, 1]


def _im2seq(attrs, x: LoDTensor) -> LoDTensor:
    arr = x.numpy()
    cols, (oh, ow) = im2col(arr, *_im2seq_args(attrs), "im2sequence")
    rows = cols.transpose(0, 2, 1).reshape(-1, cols.shape[1])
    return LoDTensor.unchecked(rows, (offsets_of(np.full(arr.shape[0], oh * ow, np.int64)),))


def _im2seq_grad(attrs, x: LoDTensor, dout: LoDTensor) -> LoDTensor:
    n = x.shape[0]
    d = dout.numpy().reshape(n, -1, dout.shape[1]).transpose(0, 2, 1)
    return LoDTensor.unchecked(col2im(d, x.shape, *_im2seq_args(attrs), "im2sequence_grad"),
                               x.offsets)


def _infer_im2seq(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) == 4, f"X must be [N, C, H, W], got {list(x)}")
    ctx.enforce(len(ctx.attr("paddings")) == 4, "paddings must be [up, left, down, right]")
    ctx.enforce_positive("kernels", "strides")
    kh, kw = _pair(ctx.attr("kernels"))
    ctx.set_output("Out", (-1, x[1] * kh * kw if x[1] >= 0 else -1), ctx.input_dtype("X"))
    ctx.set_output_lod_level("Out", 1)


register_simple(
    "im2sequence", [In("X", "[N, C, H, W]")], [Out("Out", "[N oh ow, C kh kw], one sequence "
                                                          "per image")],
    [Attr("kernels", "ints", [1, 1], "[kh, kw]"), Attr("strides", "ints", [1, 1], "[sh, sw]"),
     Attr("paddings", "ints", [0, 0, 0, 0], "[up, left, down, right]")],
    _infer_im2seq, _im2seq, backward=_im2seq_grad, wrt=["X"], lod=True, doc=__doc__)

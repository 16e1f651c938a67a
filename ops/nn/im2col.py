"""unfold and im2sequence (+ grads), over one im2col / col2im written here:

    unfold       [N, C, H, W] -> [N, C kh kw, L]: every (dilated, strided, padded) kh x kw
                 block as a column; the gradient col2im adds each column back where it came from
    im2sequence  each image's blocks as one sequence of rows [oh ow, C kh kw] (a LoDTensor);
                 with Y (a batch's real image sizes, Paddle 1.6+) image i gives the
                 oh_i x ow_i blocks of its real size ceil(Y[i] / out_stride), laid from its
                 top-left corner as Paddle's kernel lays them (what lies past the real size
                 but inside X is read; past X, 0). Its gradient adds each row back where it
                 was read; Paddle's grad kernel ignores Y and reads dOut as if every image
                 had X's full grid, which is not the derivative, so paddle-ir's differs there
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
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
    ctx.enforce(len(x) == 4, lambda: f"X must be [N, C, H, W], got {list(x)}")
    ctx.enforce_positive("kernel_sizes", "strides", "dilations")
    attrs = {k: ctx.attr(k) for k in ("kernel_sizes", "strides", "paddings", "dilations")}
    (kh, kw), (sh, sw), pads, (dh, dw) = _unfold_args(attrs)
    if all(d >= 0 for d in x[2:]):
        oh = _out_size(x[2], kh, sh, pads[0], pads[2], dh)
        ow = _out_size(x[3], kw, sw, pads[1], pads[3], dw)
        ctx.enforce(oh > 0 and ow > 0, lambda: f"the kernel does not fit X {list(x)}")
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


def _real_grids(attrs, y, n: int) -> list[tuple[int, int]] | None:
    """Per image, the (oh, ow) block grid of its real size (Y), or None to use X's size.

    As Paddle's kernel: only for a batch of more than one image; Y's [N, 2] numbers (its
    height, width) truncate to ints, divide by out_stride rounding up, and size the grid
    with the paddings and kernel as X's own size would."""
    if y is None or n <= 1:
        return None
    sizes = np.asarray(y.numpy() if isinstance(y, LoDTensor) else y)
    if sizes.shape != (n, 2):
        raise KernelError(f"im2sequence: Y must be [{n}, 2] (each image's real height and "
                          f"width), got {list(sizes.shape)}")
    (kh, kw), (sh, sw), pads, _ = _im2seq_args(attrs)
    stride_h, stride_w = _pair(attrs["out_stride"])
    grids = []
    for i, (h, w) in enumerate(sizes.astype(np.int64).tolist()):
        h, w = -(-h // stride_h), -(-w // stride_w)
        oh, ow = _out_size(h, kh, sh, pads[0], pads[2], 1), _out_size(w, kw, sw, pads[1],
                                                                       pads[3], 1)
        if h < 0 or w < 0 or oh <= 0 or ow <= 0:
            raise KernelError(f"im2sequence: image {i}'s real size Y[{i}] = "
                              f"{sizes[i].tolist()} gives a {oh} x {ow} block grid; it "
                              f"must give at least one block")
        grids.append((oh, ow))
    return grids


def _grid_index(shape, kernel, strides, pads, oh: int, ow: int):
    """Rows, columns and inside-mask [oh ow, kh kw] of an oh x ow block grid laid from the
    image's top-left corner (up/left padding); positions outside the image read 0."""
    (h, w), (kh, kw), (sh, sw) = shape, kernel, strides
    check_allocation("im2sequence", (oh * ow, kh * kw), np.int64, "Y (the real image sizes)")
    rows = (np.arange(oh) * sh - pads[0])[:, None, None, None] + np.arange(kh)[:, None]
    cols = (np.arange(ow) * sw - pads[1])[None, :, None, None] + np.arange(kw)[None, :]
    rows, cols = np.broadcast_arrays(rows, cols)  # [oh, ow, kh, kw]
    inside = (rows >= 0) & (rows < h) & (cols >= 0) & (cols < w)
    shape2 = (oh * ow, kh * kw)
    return (np.clip(rows, 0, h - 1).reshape(shape2), np.clip(cols, 0, w - 1).reshape(shape2),
            inside.reshape(shape2))


def _im2seq(attrs, x: LoDTensor, y=None) -> LoDTensor:
    arr = x.numpy()
    grids = _real_grids(attrs, y, arr.shape[0])
    if grids is None:
        cols, (oh, ow) = im2col(arr, *_im2seq_args(attrs), "im2sequence")
        rows = cols.transpose(0, 2, 1).reshape(-1, cols.shape[1])
        return LoDTensor.unchecked(rows, (offsets_of(np.full(arr.shape[0], oh * ow,
                                                             np.int64)),))
    kernel, strides, pads, _ = _im2seq_args(attrs)
    c = arr.shape[1]
    total = sum(oh * ow for oh, ow in grids)
    check_allocation("im2sequence", (total, c * kernel[0] * kernel[1]), arr.dtype,
                     "Y (the real image sizes)")
    parts = []
    for image, (oh, ow) in zip(arr, grids, strict=True):
        r, q, inside = _grid_index(arr.shape[2:], kernel, strides, pads, oh, ow)
        patches = np.where(inside, image[:, r, q], 0)  # [C, oh ow, kh kw]
        parts.append(patches.transpose(1, 0, 2).reshape(oh * ow, -1))
    lengths = np.array([oh * ow for oh, ow in grids], np.int64)
    return LoDTensor.unchecked(np.concatenate(parts).astype(arr.dtype),
                               (offsets_of(lengths),))


def _im2seq_grad(attrs, x: LoDTensor, y, dout: LoDTensor) -> LoDTensor:
    n = x.shape[0]
    grids = _real_grids(attrs, y, n)
    if grids is None:
        d = dout.numpy().reshape(n, -1, dout.shape[1]).transpose(0, 2, 1)
        return LoDTensor.unchecked(col2im(d, x.shape, *_im2seq_args(attrs),
                                          "im2sequence_grad"), x.offsets)
    kernel, strides, pads, _ = _im2seq_args(attrs)
    c, h, w = x.shape[1:]
    dx = np.zeros((n, c, h * w), dout.dtype)
    d = dout.numpy()
    start = 0
    for i, (oh, ow) in enumerate(grids):
        r, q, inside = _grid_index((h, w), kernel, strides, pads, oh, ow)
        block = d[start:start + oh * ow].reshape(oh * ow, c, -1).transpose(1, 0, 2)
        start += oh * ow
        flat = np.broadcast_to((r * w + q)[inside], (c, int(inside.sum())))
        np.add.at(dx[i], (np.arange(c)[:, None], flat), block[:, inside])
    return LoDTensor.unchecked(dx.reshape(x.shape), x.offsets)


def _infer_im2seq(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) == 4, lambda: f"X must be [N, C, H, W], got {list(x)}")
    ctx.enforce(len(ctx.attr("paddings")) == 4, "paddings must be [up, left, down, right]")
    ctx.enforce_positive("kernels", "strides", "out_stride")
    if ctx.has_input("Y"):
        y = ctx.input_shape("Y")
        ctx.enforce(len(y) == 2 and y[1] in (2, -1) and (y[0] < 0 or x[0] < 0 or y[0] == x[0]),
                    lambda: f"Y must be [N, 2] (each image's real height and width) for X "
                    f"{list(x)}, "
                    f"got {list(y)}")
    kh, kw = _pair(ctx.attr("kernels"))
    ctx.set_output("Out", (-1, x[1] * kh * kw if x[1] >= 0 else -1), ctx.input_dtype("X"))
    ctx.set_output_lod_level("Out", 1)


register_simple(
    "im2sequence",
    [In("X", "[N, C, H, W]"),
     In("Y", "[N, 2]: each image's real height and width (numbers); read when N > 1",
        dispensable=True)],
    [Out("Out", "[N oh ow, C kh kw], one sequence per image")],
    [Attr("kernels", "ints", [1, 1], "[kh, kw]"), Attr("strides", "ints", [1, 1], "[sh, sw]"),
     Attr("paddings", "ints", [0, 0, 0, 0], "[up, left, down, right]"),
     Attr("out_stride", "ints", [1, 1], "Y's sizes are divided by it (rounding up)")],
    _infer_im2seq, _im2seq, backward=_im2seq_grad, wrt=["X"], lod=True, doc=__doc__)

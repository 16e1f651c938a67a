"""var_conv_2d (+ _grad): a 2-D convolution over variable-size images given by LoD.

Batch item b is an image of InputChannel x H_b x W_b values stored flat in X
([N, 1], its first LoD level), H_b from ROW's first LoD level and W_b from
COLUMN's (the match matrices of match_matrix_tensor). With k = KernelH x
KernelW centred on the output position (zero outside the image: offsets
-KernelH // 2 .. ) and strides StrideH, StrideW, the item's output is

    Out_b[o, y', x'] = sum_{c, ky, kx} W[o, (c * KernelH + ky) * KernelW + kx]
                                       * img_b[c, y' * StrideH + ky - KernelH // 2,
                                                  x' * StrideW + kx - KernelW // 2]

for y' < ceil(H_b / StrideH), x' < ceil(W_b / StrideW); an empty image gives
nothing. Out is [sum_b OutputChannel * y'_b * x'_b, 1], items one after another
(channel-major), with one LoD level of those offsets. Col (intermediate) is
the im2col matrix [InputChannel * KernelH * KernelW, y' * x'] of each item,
flat with its own LoD, as Paddle keeps it for the gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.sequence_ops.sequence_common import lod_error, require_lod

_INTS = ("InputChannel", "OutputChannel", "StrideH", "StrideW", "KernelH", "KernelW")
_ATTRS = [Attr(name, "int", 1, doc) for name, doc in zip(_INTS, (
    "channels of each input image", "filters (channels of each output image)",
    "vertical stride", "horizontal stride", "kernel height", "kernel width"), strict=True)]

var_conv_2d = register_op(
    "var_conv_2d",
    inputs=[In("X", "[N, 1]: InputChannel x H_b x W_b values per item, LoD >= 1"),
            In("ROW", "a LoDTensor whose first LoD level gives each item's H_b"),
            In("COLUMN", "a LoDTensor whose first LoD level gives each item's W_b"),
            In("W", "[OutputChannel, InputChannel * KernelH * KernelW] filters")],
    outputs=[Out("Out", "[sum OutputChannel * out_h * out_w, 1], one LoD level"),
             Out("Col", "intermediate: each item's im2col matrix, flat, one LoD level")],
    attrs=_ATTRS,
    doc=__doc__,
)


def _check(ctx) -> None:
    for name in _INTS:
        ctx.enforce(ctx.attr(name) > 0, lambda: f"{name} must be > 0, got {ctx.attr(name)}")
    x, w = ctx.input_shape("X"), ctx.input_shape("W")
    ctx.enforce(len(x) == 2 and dims_match(x[1], 1),
                lambda: f"X must be [N, 1] (the images' values, one per row), got {shape_str(x)}")
    width = ctx.attr("InputChannel") * ctx.attr("KernelH") * ctx.attr("KernelW")
    ctx.enforce(len(w) == 2 and dims_match(w[0], ctx.attr("OutputChannel"))
                and dims_match(w[1], width),
                lambda: f"W must be [OutputChannel, InputChannel * KernelH * KernelW] = "
                f"[{ctx.attr('OutputChannel')}, {width}], got {shape_str(w)}")
    ctx.enforce(ctx.input_dtype("W") == ctx.input_dtype("X"),
                lambda: f"W must have X's dtype {ctx.input_dtype('X')}, got {ctx.input_dtype('W')}")


@var_conv_2d.infer_shape
def _(ctx):
    for slot in ("X", "ROW", "COLUMN"):
        require_lod(ctx, slot)
    _check(ctx)
    for slot in ("Out", "Col"):
        ctx.set_output(slot, (-1, 1), ctx.input_dtype("X"))
        ctx.set_output_lod_level(slot, 1)


def _out_size(n: int, stride: int) -> int:
    return 0 if n == 0 else (n - 1) // stride + 1


def _images(attrs, x, row, column):
    """Per item (first X row, H, W, out_h, out_w), checked against the LoDs."""
    x_off, h_off, w_off = x.offsets[0], row.offsets[0], column.offsets[0]
    if not len(x_off) == len(h_off) == len(w_off):
        raise lod_error("var_conv_2d",
                        f"X, ROW and COLUMN must have the same number of sequences in their "
                        f"first LoD level, got {len(x_off) - 1}, {len(h_off) - 1} and "
                        f"{len(w_off) - 1}")
    if x_off[-1] != x.shape[0]:
        raise lod_error("var_conv_2d", f"X's first LoD level must end at its {x.shape[0]} rows, "
                                       f"ends at {int(x_off[-1])}", hint="give X one LoD level")
    channels, items = attrs["InputChannel"], []
    for b in range(len(x_off) - 1):
        h, w = int(h_off[b + 1] - h_off[b]), int(w_off[b + 1] - w_off[b])
        size = int(x_off[b + 1] - x_off[b])
        if size != channels * h * w:
            raise lod_error("var_conv_2d",
                            f"X's sequence {b} must hold InputChannel * rows * columns = "
                            f"{channels} * {h} * {w} = {channels * h * w} values, got {size}")
        items.append((int(x_off[b]), h, w, _out_size(h, attrs["StrideH"]),
                      _out_size(w, attrs["StrideW"])))
    return items


def _windows(attrs, h: int, w: int, out_h: int, out_w: int):
    """Index arrays into the image padded by (KernelH // 2, KernelW // 2) on top and left."""
    kh, kw = attrs["KernelH"], attrs["KernelW"]
    rows = np.arange(out_h)[None, :] * attrs["StrideH"] + np.arange(kh)[:, None]  # [kh, out_h]
    cols = np.arange(out_w)[None, :] * attrs["StrideW"] + np.arange(kw)[:, None]  # [kw, out_w]
    return rows[:, None, :, None], cols[None, :, None, :]  # -> [kh, kw, out_h, out_w]


def _padded_shape(attrs, h: int, w: int) -> tuple[int, int]:
    return h + attrs["KernelH"], w + attrs["KernelW"]


def _offsets(sizes) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64)


@var_conv_2d.kernel(dtypes=FLOATS, lod=True)
def var_conv_2d_kernel(attrs, x, row, column, weight):
    data, wv = x.numpy().reshape(-1), weight.numpy()
    c_in, kh, kw = attrs["InputChannel"], attrs["KernelH"], attrs["KernelW"]
    items = _images(attrs, x, row, column)
    cols, outs = [], []
    for start, h, w, out_h, out_w in items:
        if out_h * out_w == 0:
            cols.append(np.zeros(0, data.dtype))
            outs.append(np.zeros(0, data.dtype))
            continue
        padded = np.zeros((c_in,) + _padded_shape(attrs, h, w), dtype=data.dtype)
        padded[:, kh // 2:kh // 2 + h, kw // 2:kw // 2 + w] = \
            data[start:start + c_in * h * w].reshape(c_in, h, w)
        r, c = _windows(attrs, h, w, out_h, out_w)
        col = padded[:, r, c].reshape(c_in * kh * kw, out_h * out_w)
        cols.append(col.reshape(-1))
        outs.append((wv @ col).reshape(-1))
    col_all = np.concatenate(cols) if cols else np.zeros(0, data.dtype)
    out_all = np.concatenate(outs) if outs else np.zeros(0, data.dtype)
    return (LoDTensor.unchecked(out_all.reshape(-1, 1), [_offsets([o.size for o in outs])]),
            LoDTensor.unchecked(col_all.reshape(-1, 1), [_offsets([c.size for c in cols])]))


@var_conv_2d.grad_maker
def _(g):
    return [g.grad_op(
        "var_conv_2d_grad",
        inputs={"X": g.input("X"), "ROW": g.input("ROW"), "COLUMN": g.input("COLUMN"),
                "W": g.input("W"), "Col": g.output("Col"), "Out": g.output("Out"),
                "Out@GRAD": g.output_grad("Out")},
        outputs={"X@GRAD": g.input_grad("X"), "W@GRAD": g.input_grad("W")},
        attrs={name: g.attr(name) for name in _INTS})]


var_conv_2d_grad = register_op(
    "var_conv_2d_grad",
    inputs=[In("X"), In("ROW"), In("COLUMN"), In("W"), In("Col"),
            In("Out", "unused, as in Paddle", dispensable=True), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True), Out("W@GRAD", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["Out@GRAD"],
    doc="dW = sum_b dOut_b @ Col_b^T; dX = col2im(W^T @ dOut_b).",
)


@var_conv_2d_grad.infer_shape
def _(ctx):
    _check(ctx)
    for slot in ("X", "W"):
        ctx.set_output(slot + "@GRAD", ctx.input_shape(slot), ctx.input_dtype(slot))
    ctx.share_lod("X", "X@GRAD")


@var_conv_2d_grad.kernel(dtypes=FLOATS, lod=True)
def var_conv_2d_grad_kernel(attrs, x, row, column, weight, col, out, d_out):
    wv = weight.numpy()
    c_in, kh, kw, c_out = (attrs[k] for k in ("InputChannel", "KernelH", "KernelW",
                                              "OutputChannel"))
    items = _images(attrs, x, row, column)
    col_v, dout = np.asarray(col).reshape(-1), np.asarray(d_out).reshape(-1)
    col_sizes = [c_in * kh * kw * oh * ow for _, _, _, oh, ow in items]
    out_sizes = [c_out * oh * ow for _, _, _, oh, ow in items]
    if col_v.size != sum(col_sizes) or dout.size != sum(out_sizes):
        raise lod_error("var_conv_2d_grad",
                        f"Col must have {sum(col_sizes)} values and Out@GRAD {sum(out_sizes)} "
                        f"(the forward op's), got {col_v.size} and {dout.size}")
    col_off, out_off = _offsets(col_sizes), _offsets(out_sizes)
    dx = np.zeros(x.shape[0], dtype=dout.dtype)
    dw = np.zeros_like(wv)
    for b, (start, h, w, out_h, out_w) in enumerate(items):
        if out_h * out_w == 0:
            continue
        g = dout[out_off[b]:out_off[b + 1]].reshape(c_out, out_h * out_w)
        dw += g @ col_v[col_off[b]:col_off[b + 1]].reshape(-1, out_h * out_w).T
        d_col = (wv.T @ g).reshape(c_in, kh, kw, out_h, out_w)
        d_pad = np.zeros((c_in,) + _padded_shape(attrs, h, w), dtype=dout.dtype)
        r, c = _windows(attrs, h, w, out_h, out_w)
        np.add.at(d_pad, (slice(None), r, c), d_col)
        dx[start:start + c_in * h * w] = \
            d_pad[:, kh // 2:kh // 2 + h, kw // 2:kw // 2 + w].reshape(-1)
    return LoDTensor.unchecked(dx.reshape(x.shape), x.offsets), LoDTensor.unchecked(dw)

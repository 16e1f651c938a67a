"""match_matrix_tensor (+ _grad): the bilinear match matrices of two batches of sequences.

For the b-th sequence pair, X_b [len_l, h] (X's first LoD level) and Y_b
[len_r, h] (Y's), and W [h, dim_t, h]:

    Out_b[t, i, j] = X_b[i] @ W[:, t, :] @ Y_b[j]        for t < dim_t

Out is [sum_b dim_t * len_l * len_r, 1], the pairs one after another, each
t-major then i, j, with one LoD level of those offsets (what
sequence_topk_avg_pooling reads as channel_num = dim_t matrices per item).
Tmp (intermediate, [rows of X * dim_t * h, 1]) keeps X @ W, row i holding
dim_t blocks of h, for the gradient. X and Y must have the same width:
Paddle's kernel indexes Y with X's width, so a W of [h_x, dim_t, h_y] with
h_y != h_x is refused here rather than read wrongly.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.sequence_ops.sequence_common import lod_error, require_lod

_ATTRS = [Attr("dim_t", "int", 1, "the number of match channels (W.shape[1])")]

match_matrix_tensor = register_op(
    "match_matrix_tensor",
    inputs=[In("X", "[rows_l, h], LoD >= 1 (the first level pairs with Y's)"),
            In("Y", "[rows_r, h], LoD >= 1"),
            In("W", "[h, dim_t, h]")],
    outputs=[Out("Out", "[sum dim_t * len_l * len_r, 1], one LoD level"),
             Out("Tmp", "intermediate: X @ W, [rows_l * dim_t * h, 1]")],
    attrs=_ATTRS,
    doc=__doc__,
)


@match_matrix_tensor.infer_shape
def _(ctx):
    require_lod(ctx, "X")
    require_lod(ctx, "Y")
    x, y, w = (ctx.input_shape(s) for s in ("X", "Y", "W"))
    dim_t = ctx.attr("dim_t")
    ctx.enforce(dim_t > 0, lambda: f"dim_t must be > 0, got {dim_t}")
    ctx.enforce(len(x) == 2, lambda: f"X must be 2-D [rows, h], got {shape_str(x)}")
    ctx.enforce(len(y) == 2, lambda: f"Y must be 2-D [rows, h], got {shape_str(y)}")
    ctx.enforce(len(w) == 3, lambda: f"W must be 3-D [h, dim_t, h], got {shape_str(w)}")
    ctx.enforce(dims_match(x[1], y[1]), lambda:
                f"X and Y must have the same width h (Paddle's kernel reads Y with X's), got "
                f"X {shape_str(x)} and Y {shape_str(y)}")
    ctx.enforce(dims_match(w[0], x[1]) and dims_match(w[1], dim_t) and dims_match(w[2], y[1]),
                lambda: f"W must be [X.shape[1], dim_t, Y.shape[1]] = [{x[1]}, {dim_t}, "
                f"{y[1]}], got "
                f"{shape_str(w)}")
    for slot in ("Y", "W"):
        ctx.enforce(ctx.input_dtype(slot) == ctx.input_dtype("X"),
                    lambda: f"{slot} must have X's dtype {ctx.input_dtype('X')}, got "
                    f"{ctx.input_dtype(slot)}")
    dtype = ctx.input_dtype("X")
    ctx.set_output("Out", (-1, 1), dtype)
    ctx.set_output_lod_level("Out", 1)
    tmp = x[0] * dim_t * x[1] if x[0] >= 0 and x[1] >= 0 else -1
    ctx.set_output("Tmp", (tmp, 1), dtype)
    ctx.set_output_lod_level("Tmp", 0)


def _pairs(x, y):
    """(first X row, first Y row, len_l, len_r) per sequence pair, from the first LoD levels."""
    off_l, off_r = x.offsets[0], y.offsets[0]
    for slot, value, off in (("X", x, off_l), ("Y", y, off_r)):
        if off[-1] != value.shape[0]:  # a deeper LoD's first level counts sequences, not rows
            raise lod_error("match_matrix_tensor",
                            f"{slot}'s first LoD level must end at its {value.shape[0]} rows, "
                            f"ends at {int(off[-1])}", hint="give it one LoD level")
    if len(off_l) != len(off_r):
        raise lod_error("match_matrix_tensor",
                        f"X and Y must have the same number of sequences in their first LoD "
                        f"level, got {len(off_l) - 1} and {len(off_r) - 1}")
    return [(int(off_l[b]), int(off_r[b]), int(off_l[b + 1] - off_l[b]),
             int(off_r[b + 1] - off_r[b])) for b in range(len(off_l) - 1)]


def _out_offsets(pairs, dim_t: int) -> np.ndarray:
    sizes = [dim_t * n_l * n_r for _, _, n_l, n_r in pairs]
    return np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64)


@match_matrix_tensor.kernel(dtypes=FLOATS, lod=True)
def match_matrix_tensor_kernel(attrs, x, y, w):
    dim_t = attrs["dim_t"]
    xv, yv, wv = x.numpy(), y.numpy(), w.numpy()
    h = xv.shape[1]
    pairs = _pairs(x, y)
    tmp = (xv @ wv.reshape(h, dim_t * h)).reshape(-1, dim_t, h)  # [rows_l, dim_t, h]
    offsets = _out_offsets(pairs, dim_t)
    out = np.empty(int(offsets[-1]), dtype=xv.dtype)
    for b, (l0, r0, n_l, n_r) in enumerate(pairs):
        # [dim_t, n_l, h] @ [h, n_r] -> [dim_t, n_l, n_r]
        block = tmp[l0:l0 + n_l].transpose(1, 0, 2) @ yv[r0:r0 + n_r].T
        out[offsets[b]:offsets[b + 1]] = block.reshape(-1)
    return (LoDTensor.unchecked(out.reshape(-1, 1), [offsets]),
            tmp.reshape(-1, 1))


@match_matrix_tensor.grad_maker
def _(g):
    return [g.grad_op(
        "match_matrix_tensor_grad",
        inputs={"X": g.input("X"), "Y": g.input("Y"), "W": g.input("W"), "Tmp": g.output("Tmp"),
                "Out@GRAD": g.output_grad("Out")},
        outputs={"X@GRAD": g.input_grad("X"), "Y@GRAD": g.input_grad("Y"),
                 "W@GRAD": g.input_grad("W")},
        attrs={"dim_t": g.attr("dim_t")})]


match_matrix_tensor_grad = register_op(
    "match_matrix_tensor_grad",
    inputs=[In("X"), In("Y"), In("W"), In("Tmp"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True), Out("Y@GRAD", dispensable=True),
             Out("W@GRAD", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["Out@GRAD"],
    doc="dTmp = dOut @ Y, dY = dOut^T @ Tmp per pair and channel; dX = dTmp @ W^T, "
        "dW = X^T @ dTmp.",
)


@match_matrix_tensor_grad.infer_shape
def _(ctx):
    for slot in ("X", "Y", "W"):
        ctx.set_output(slot + "@GRAD", ctx.input_shape(slot), ctx.input_dtype(slot))
    ctx.share_lod("X", "X@GRAD")
    ctx.share_lod("Y", "Y@GRAD")


@match_matrix_tensor_grad.kernel(dtypes=FLOATS, lod=True)
def match_matrix_tensor_grad_kernel(attrs, x, y, w, tmp, d_out):
    dim_t = attrs["dim_t"]
    xv, yv, wv = x.numpy(), y.numpy(), w.numpy()
    h = xv.shape[1]
    pairs = _pairs(x, y)
    offsets = _out_offsets(pairs, dim_t)
    dout = np.asarray(d_out).reshape(-1)
    tmp_v = np.asarray(tmp).reshape(-1)
    if dout.size != offsets[-1] or tmp_v.size != xv.shape[0] * dim_t * h:
        raise lod_error("match_matrix_tensor_grad",
                        f"Out@GRAD must have {int(offsets[-1])} values and Tmp "
                        f"{xv.shape[0] * dim_t * h} (the forward op's), got {dout.size} and "
                        f"{tmp_v.size}")
    tmp_v = tmp_v.reshape(-1, dim_t, h)
    d_tmp = np.zeros_like(tmp_v)
    d_y = np.zeros_like(yv)
    for b, (l0, r0, n_l, n_r) in enumerate(pairs):
        g = dout[offsets[b]:offsets[b + 1]].reshape(dim_t, n_l, n_r)
        d_tmp[l0:l0 + n_l] += (g @ yv[r0:r0 + n_r]).transpose(1, 0, 2)
        d_y[r0:r0 + n_r] += np.einsum("tij,ith->jh", g, tmp_v[l0:l0 + n_l])
    d_tmp2 = d_tmp.reshape(-1, dim_t * h)
    d_x = d_tmp2 @ wv.reshape(h, dim_t * h).T
    d_w = (xv.T @ d_tmp2).reshape(wv.shape)
    return (LoDTensor.unchecked(d_x, x.offsets), LoDTensor.unchecked(d_y, y.offsets),
            LoDTensor.unchecked(d_w))

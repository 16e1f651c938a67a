"""sequence_topk_avg_pooling (+ _grad): top-k average pooling of the rows of match matrices.

The text-matching op after match_matrix_tensor (MatchPyramid-style search
models). For batch item i, ROW's and COLUMN's first LoD levels give R_i rows
and C_i columns; X (shape [N] or [N, 1], its first LoD level counting
elements) holds the item's channel_num matrices [channel_num, R_i, C_i], one
after another. For every channel j and row r, with v_1 >= v_2 >= ... the
row's values in descending order (ties: the lower column first, as Paddle):

    Out[ROW_offset_i + r, j * len(topks) + m] = (v_1 + ... + v_min(k, C_i)) / k,  k = topks[m]

so a row shorter than k still divides by k (Paddle's rule), and an empty
row gives 0. Out is [ROW.shape[0], channel_num * len(topks)] with ROW's first
LoD level. pos (int32, intermediate) keeps the chosen columns, max(topks) per
(row, channel), -1 past the row's end, laid out row, channel, rank as Paddle.
Gradient: dX at each chosen column gets the sum of dOut[.., m] / topks[m] over
the m whose top-k includes it.

Paddle's kernel never picks a value <= -1e7 (its search sentinel, undefined
behaviour when a row has nothing larger); here such values rank like any other.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.sequence_ops.sequence_common import lod_error, require_lod

_ATTRS = [
    Attr("topks", "ints", [], "the k of each average, each in 1..topks[-1] (the largest)"),
    Attr("channel_num", "int", 1, "matrices per batch item in X"),
]

sequence_topk_avg_pooling = register_op(
    "sequence_topk_avg_pooling",
    inputs=[In("X", "[N] or [N, 1]: channel_num matrices R_i x C_i per item, LoD >= 1"),
            In("ROW", "a LoDTensor whose first LoD level gives each item's R_i"),
            In("COLUMN", "a LoDTensor whose first LoD level gives each item's C_i")],
    outputs=[Out("Out", "[ROW rows, channel_num * len(topks)], ROW's first LoD level"),
             Out("pos", "intermediate: int32 chosen columns, -1 padded")],
    attrs=_ATTRS,
    doc=__doc__,
)


def _check_attrs(ctx) -> tuple[list[int], int]:
    topks, channels = list(ctx.attr("topks")), ctx.attr("channel_num")
    ctx.enforce(channels > 0, lambda: f"channel_num must be > 0, got {channels}")
    ctx.enforce(len(topks) > 0, "topks must not be empty")
    ctx.enforce(all(1 <= k <= topks[-1] for k in topks), lambda:
                f"topks must each be in 1..topks[-1] (Paddle takes the last as the largest), "
                f"got {topks}", hint="list the k values in ascending order, e.g. [1, 3, 5]")
    return topks, channels


def _check_x(ctx) -> None:
    shape = ctx.input_shape("X")
    ctx.enforce(len(shape) in (1, 2) and (len(shape) == 1 or shape[1] in (1, -1)),
                lambda: f"X must be [N] or [N, 1] (one value per element of the match matrices), "
                f"got {list(shape)}")


@sequence_topk_avg_pooling.infer_shape
def _(ctx):
    topks, channels = _check_attrs(ctx)
    for slot in ("X", "ROW", "COLUMN"):
        require_lod(ctx, slot)
    _check_x(ctx)
    ctx.set_output("Out", (ctx.input_shape("ROW")[0], channels * len(topks)),
                   ctx.input_dtype("X"))
    ctx.set_output_lod_level("Out", 1)
    ctx.set_output("pos", (-1,), np.int32)
    ctx.set_output_lod_level("pos", 0)


def _items(x, row, column, channels: int):
    """Per batch item (x offset, row offset, R, C), checked against Paddle's size rule."""
    x_off, row_off, col_off = x.offsets[0], row.offsets[0], column.offsets[0]
    if not len(x_off) == len(row_off) == len(col_off):
        raise lod_error("sequence_topk_avg_pooling",
                        f"X, ROW and COLUMN must have the same number of sequences in their "
                        f"first LoD level, got {len(x_off) - 1}, {len(row_off) - 1} and "
                        f"{len(col_off) - 1}")
    if row.shape[0] != row_off[-1]:
        raise lod_error("sequence_topk_avg_pooling",
                        f"ROW's first LoD level must cover its {row.shape[0]} rows, ends at "
                        f"{row_off[-1]}")
    items = []
    for i in range(len(x_off) - 1):
        size = int(x_off[i + 1] - x_off[i])
        r, c = int(row_off[i + 1] - row_off[i]), int(col_off[i + 1] - col_off[i])
        if size != channels * r * c:
            raise lod_error("sequence_topk_avg_pooling",
                            f"X's sequence {i} must hold channel_num * rows * columns = "
                            f"{channels} * {r} * {c} = {channels * r * c} values, got {size}")
        items.append((int(x_off[i]), int(row_off[i]), r, c))
    return items


def _rank(block: np.ndarray, max_k: int) -> np.ndarray:
    """Column indices of each row's max_k largest, descending, ties to the lower column."""
    order = np.argsort(-block, axis=-1, kind="stable")
    return order[..., :max_k]


@sequence_topk_avg_pooling.kernel(dtypes=FLOATS, lod=True)
def sequence_topk_avg_pooling_kernel(attrs, x, row, column):
    topks, channels = list(attrs["topks"]), attrs["channel_num"]
    max_k, ks = topks[-1], np.asarray(topks)
    data = x.numpy().reshape(-1)
    rows_total = row.shape[0]
    out = np.zeros((rows_total, channels, len(topks)), dtype=data.dtype)
    pos = np.full((rows_total, channels, max_k), -1, dtype=np.int32)
    for start, row_start, r, c in _items(x, row, column, channels):
        if r == 0 or c == 0:
            continue
        block = data[start:start + channels * r * c].reshape(channels, r, c)
        chosen = _rank(block, max_k)  # [channels, r, min(c, max_k)]
        kk = chosen.shape[-1]
        sums = np.cumsum(np.take_along_axis(block, chosen, axis=-1), axis=-1)
        out[row_start:row_start + r] = (sums[..., np.minimum(ks, kk) - 1] / ks).transpose(1, 0, 2)
        pos[row_start:row_start + r, :, :kk] = chosen.transpose(1, 0, 2)
    return (LoDTensor.unchecked(out.reshape(rows_total, -1), [row.offsets[0]]),
            pos.reshape(-1))


@sequence_topk_avg_pooling.grad_maker
def _(g):
    return [g.grad_op(
        "sequence_topk_avg_pooling_grad",
        inputs={"X": g.input("X"), "ROW": g.input("ROW"), "COLUMN": g.input("COLUMN"),
                "pos": g.output("pos"), "Out@GRAD": g.output_grad("Out")},
        outputs={"X@GRAD": g.input_grad("X")},
        attrs={a.name: g.attr(a.name) for a in _ATTRS})]


sequence_topk_avg_pooling_grad = register_op(
    "sequence_topk_avg_pooling_grad",
    inputs=[In("X", "for its shape and LoD", no_need_buffer=True), In("ROW"), In("COLUMN"),
            In("pos"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["Out@GRAD"],
    doc="dX: each chosen value gets dOut / k of every top-k average that took it.",
)


@sequence_topk_avg_pooling_grad.infer_shape
def _(ctx):
    _check_attrs(ctx)
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("Out@GRAD"))
    ctx.share_lod("X", "X@GRAD")


@sequence_topk_avg_pooling_grad.kernel(dtypes=FLOATS, lod=True)
def sequence_topk_avg_pooling_grad_kernel(attrs, x, row, column, pos, d_out):
    topks, channels = list(attrs["topks"]), attrs["channel_num"]
    max_k, ks = topks[-1], np.asarray(topks)
    rows_total = row.shape[0]
    dout, pos = np.asarray(d_out), np.asarray(pos)
    if dout.size != rows_total * channels * len(topks) or pos.size != rows_total * channels * max_k:
        raise lod_error("sequence_topk_avg_pooling_grad",
                        f"Out@GRAD must have {rows_total * channels * len(topks)} values and pos "
                        f"{rows_total * channels * max_k} (the forward op's), got {dout.size} and "
                        f"{pos.size}")
    dout = dout.reshape(rows_total, channels, len(topks))
    pos = pos.reshape(rows_total, channels, max_k)
    # The weight of rank k: dOut[m] / topks[m] summed over the averages that reach rank k.
    reach = np.arange(max_k)[None, :] < ks[:, None]  # [len(topks), max_k]
    weights = (dout / ks) @ reach.astype(dout.dtype)  # [rows, channels, max_k]
    dx = np.zeros(int(np.prod(x.shape)), dtype=dout.dtype)
    for start, row_start, r, c in _items(x, row, column, channels):
        kk = min(c, max_k)
        if r == 0 or kk == 0:
            continue
        block = dx[start:start + channels * r * c].reshape(channels, r, c)
        chosen = pos[row_start:row_start + r, :, :kk].transpose(1, 0, 2)
        if chosen.min() < 0 or chosen.max() >= c:
            raise lod_error("sequence_topk_avg_pooling_grad",
                            f"pos must hold columns in 0..{c - 1} for batch item rows "
                            f"{row_start}..{row_start + r - 1}, as the forward op wrote them")
        np.put_along_axis(block, chosen.astype(np.int64),
                          weights[row_start:row_start + r, :, :kk].transpose(1, 0, 2), axis=-1)
    return LoDTensor.unchecked(dx.reshape(x.shape), x.offsets)

"""Rank tables for dynamic RNNs: lod_rank_table, max_sequence_len, reorder_lod_tensor_by_rank.

    Out = lod_rank_table(X, level)          the sequences of X's LoD level `level`,
                                            sorted by length, longest first (stable)
    Out = max_sequence_len(RankTable)       int64 [1]: the longest length
    Out = reorder_lod_tensor_by_rank(X, RankTable)
                                            X's sequences (rows without LoD) in the
                                            table's order; dX is reordered back

A DynamicRNN steps the table's sequences together; at step t the sequences
longer than t are the first rows of every per-step tensor (core/rank_table.py).
Paddle 3 no longer registers these ops; paddle-ir keeps them for its loops.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor, lengths_to_offsets
from paddle_ir.core.rank_table import LoDRankTable
from paddle_ir.ops.context import LOD_RANK_TABLE
from paddle_ir.ops.registry import ALL_DTYPES, CONTROL_DTYPES, Attr, In, Out, register_op

lod_rank_table = register_op(
    "lod_rank_table",
    inputs=[In("X", "a LoD tensor")],
    outputs=[Out("Out", "the rank table of LoD level `level`")],
    attrs=[Attr("level", "int", 0, "the LoD level whose sequences are ranked")],
    key_inputs=[],
    doc=__doc__,
)


@lod_rank_table.infer_var_type
def _(ctx):
    ctx.set_output_type("Out", LOD_RANK_TABLE)


@lod_rank_table.infer_shape
def _(ctx):
    level = ctx.attr("level")
    lod_level = ctx.input_lod_level("X")
    ctx.enforce(0 <= level < lod_level, lambda:
                f"level must index X's LoD levels (X has lod_level {lod_level}), got {level}",
                hint="rank the sequences of a LoD tensor: feed a LoDTensor and declare the "
                     "data with lod_level >= 1")
    ctx.set_output("Out", (-1, 2), np.int64)
    ctx.set_output_lod_level("Out", level + 1)


@lod_rank_table.kernel(storage=[], dtypes=CONTROL_DTYPES, lod=True)
def lod_rank_table_kernel(attrs, x):
    level = attrs["level"]
    if level >= x.lod_level:
        raise KernelError(f"lod_rank_table: X has {x.lod_level} LoD levels, level is {level}")
    return LoDRankTable.from_offsets(x.offsets, level)


lod_rank_table.grad_maker(lambda g: [])

max_sequence_len = register_op(
    "max_sequence_len",
    inputs=[In("RankTable", "a rank table")],
    outputs=[Out("Out", "int64 [1]: the longest sequence's length")],
    key_inputs=[],
    doc=__doc__,
)


@max_sequence_len.infer_shape
def _(ctx):
    ctx.set_output("Out", (1,), np.int64)


@max_sequence_len.kernel(storage=[], dtypes=CONTROL_DTYPES)
def max_sequence_len_kernel(attrs, table):
    return np.array([table.max_len], dtype=np.int64)


max_sequence_len.grad_maker(lambda g: [])


# -- reorder_lod_tensor_by_rank --------------------------------------------------------------


def _sequence_rows(x: LoDTensor) -> tuple[np.ndarray, np.ndarray]:
    """Row [start, end) of each top-level sequence of x (each row without LoD)."""
    if not x.lod_level:
        rows = np.arange(x.shape[0], dtype=np.int64)
        return rows, rows + 1
    starts, ends = x.offsets[0][:-1], x.offsets[0][1:]
    for level in x.offsets[1:]:
        starts, ends = level[starts], level[ends]
    return starts, ends


def concat_ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """np.concatenate([np.arange(s, e) for s, e in zip(starts, ends)]), vectorized."""
    lengths = (ends - starts).astype(np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    firsts = np.cumsum(lengths) - lengths
    return np.arange(total, dtype=np.int64) - np.repeat(firsts - starts, lengths)


def sub_lod(offsets: tuple, first: int, items: np.ndarray) -> tuple:
    """The LoD of `items` (sequences at level `first`) cut out and joined in order."""
    levels, ids = [], np.asarray(items, dtype=np.int64)
    for level in offsets[first:]:
        levels.append(lengths_to_offsets([level[ids + 1] - level[ids]])[0])
        ids = concat_ranges(level[ids], level[ids + 1])
    return tuple(levels)


def _reordered(x: LoDTensor, order: np.ndarray) -> tuple[np.ndarray, tuple]:
    starts, ends = _sequence_rows(x)
    rows = concat_ranges(starts[order], ends[order])
    return rows, sub_lod(x.offsets, 0, order) if x.lod_level else ()


def _check_table(x: LoDTensor, table: LoDRankTable, op_type: str) -> None:
    count = x.offsets[0].size - 1 if x.lod_level else x.shape[0]
    if count != len(table):
        unit = "sequences" if x.lod_level else "rows"
        raise KernelError(f"{op_type}: X has {count} {unit}, but the rank table ranks "
                          f"{len(table)} sequences",
                          hint="give one row (or sequence) per sequence of the ranked input")


reorder = register_op(
    "reorder_lod_tensor_by_rank",
    inputs=[In("X", "one row or top-level sequence per ranked sequence"),
            In("RankTable", "the rank table")],
    outputs=[Out("Out", "X's rows (sequences) in the table's order")],
    key_inputs=["X"],
    doc=__doc__,
)


@reorder.infer_shape
def _(ctx):
    ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.set_output_lod_level("Out", ctx.input_lod_level("X"))


@reorder.kernel(dtypes=ALL_DTYPES, lod=True)
def reorder_kernel(attrs, x, table):
    _check_table(x, table, "reorder_lod_tensor_by_rank")
    rows, lod = _reordered(x, table.indices)
    return LoDTensor.unchecked(x.numpy()[rows], lod)


@reorder.grad_maker
def _(g):
    return [g.grad_op("reorder_lod_tensor_by_rank_grad",
                      inputs={"X": g.input("X"), "RankTable": g.input("RankTable"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")})]


reorder_grad = register_op(
    "reorder_lod_tensor_by_rank_grad",
    inputs=[In("X"), In("RankTable"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", "Out@GRAD back in X's order, with X's LoD")],
    key_inputs=["X"],
    doc="The gradient of reorder_lod_tensor_by_rank: the inverse reordering.",
)


@reorder_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "X@GRAD")


@reorder_grad.kernel(dtypes=ALL_DTYPES, lod=True)
def reorder_grad_kernel(attrs, x, table, dout):
    rows, _ = _reordered(x, table.indices)
    dx = np.zeros_like(x.numpy(), dtype=dout.dtype)
    dx[rows] = dout.numpy()
    return LoDTensor.unchecked(dx, x.offsets)

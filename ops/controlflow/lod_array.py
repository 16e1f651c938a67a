"""Sequence batches <-> per-step arrays, for dynamic RNNs (+ grads):
lod_tensor_to_array, array_to_lod_tensor, shrink_rnn_memory.

With a rank table of X's LoD level `level` (sequences sorted longest first):

    Out = lod_tensor_to_array(X, RankTable)
        element t holds the t-th item of every sequence longer than t, in the
        table's order. An item is a row when `level` is X's last LoD level,
        else a sub-sequence, which keeps its own LoD: over the seed's 2-level
        batch (articles of sentences of words) element t is a 1-level batch
        of the t-th sentence of each article.
    Out = array_to_lod_tensor(X, RankTable)
        the inverse: items back in their sequences' original order, with the
        LoD above `level`, the level itself and the items' own LoD restored.
        One row per item in, one sequence of `level` out: a per-step vector
        of each sentence becomes a batch of sentence vectors per article.
    Out = shrink_rnn_memory(X, RankTable, I)
        the first rows of X (top-level sequences, if X has LoD) that belong
        to sequences longer than I: a memory shrunk to the sequences still
        running at step I.

Gradients move the same rows back: each op's grad kernel scatters or gathers
the rows the forward moved, and fills rows nothing moved with zeros. Paddle 3
no longer registers these ops; paddle-ir keeps them for its loops.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor, lengths_to_offsets
from paddle_ir.core.tensor_array import LoDTensorArray
from paddle_ir.ops.context import LOD_TENSOR, LOD_TENSOR_ARRAY
from paddle_ir.ops.controlflow.rank_table import concat_ranges, sub_lod
from paddle_ir.ops.controlflow.tensor_array import index_of
from paddle_ir.ops.registry import CONTROL_DTYPES, In, Out, register_op


def item_rows(offsets: tuple, first: int, num_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Row [start, end) of every item at level `first` (rows when first == len(offsets))."""
    if first >= len(offsets):
        starts = np.arange(num_rows, dtype=np.int64)
        return starts, starts + 1
    starts, ends = offsets[first][:-1], offsets[first][1:]
    for level in offsets[first + 1:]:
        starts, ends = level[starts], level[ends]
    return starts, ends


def _step_items(x: LoDTensor, table) -> list[np.ndarray]:
    """For each step t, the items (at level table.level + 1) that step t reads."""
    seq_starts = x.offsets[table.level][:-1]
    return [seq_starts[table.indices[:table.active(t)]] + t for t in range(table.max_len)]


def _check_level(x: LoDTensor, table, op_type: str) -> None:
    if x.lod_level <= table.level:
        raise KernelError(f"{op_type}: the rank table ranks LoD level {table.level}, but X "
                          f"has {x.lod_level} LoD levels")
    count = x.offsets[table.level].size - 1
    if count != len(table):
        raise KernelError(f"{op_type}: X has {count} sequences at level {table.level}, but "
                          f"the rank table ranks {len(table)}",
                          hint="build the rank table from the same input")


# -- lod_tensor_to_array ---------------------------------------------------------------------

to_array = register_op(
    "lod_tensor_to_array",
    inputs=[In("X", "a LoD tensor"), In("RankTable", "a rank table of one of X's levels")],
    outputs=[Out("Out", "one element per step")],
    key_inputs=[],
    doc=__doc__,
)


@to_array.infer_var_type
def _(ctx):
    ctx.set_output_type("Out", LOD_TENSOR_ARRAY)


@to_array.infer_shape
def _(ctx):
    x_levels, table_levels = ctx.input_lod_level("X"), ctx.input_lod_level("RankTable")
    ctx.enforce(x_levels >= table_levels,
                lambda: f"X has lod_level {x_levels}, but the rank table ranks its level "
                f"{table_levels - 1}")
    shape = ctx.input_shape("X")
    ctx.set_output("Out", (-1,) + tuple(shape[1:]), ctx.input_dtype("X"))
    ctx.set_output_lod_level("Out", x_levels - table_levels)


@to_array.kernel(storage=[], dtypes=CONTROL_DTYPES, lod=True)
def lod_tensor_to_array_kernel(attrs, x, table):
    _check_level(x, table, "lod_tensor_to_array")
    starts, ends = item_rows(x.offsets, table.level + 1, x.shape[0])
    data = x.numpy()
    elements = [LoDTensor.unchecked(data[concat_ranges(starts[items], ends[items])],
                                sub_lod(x.offsets, table.level + 1, items))
                for items in _step_items(x, table)]
    return LoDTensorArray(elements, x.dtype)


@to_array.grad_maker
def _(g):
    return [g.grad_op("lod_tensor_to_array_grad",
                      inputs={"X": g.input("X"), "RankTable": g.input("RankTable"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")})]


to_array_grad = register_op(
    "lod_tensor_to_array_grad",
    inputs=[In("X"), In("RankTable"), In("Out@GRAD", "a gradient array")],
    outputs=[Out("X@GRAD", "each element's rows put back where they came from")],
    key_inputs=[],
    doc="The gradient of lod_tensor_to_array (rows of None elements are zeros).",
)


@to_array_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "X@GRAD")


@to_array_grad.kernel(storage=[], dtypes=CONTROL_DTYPES, lod=True)
def lod_tensor_to_array_grad_kernel(attrs, x, table, dout):
    starts, ends = item_rows(x.offsets, table.level + 1, x.shape[0])
    dx = np.zeros(x.shape, dtype=dout.dtype)
    for t, items in enumerate(_step_items(x, table)):
        element = dout[t] if t < len(dout) else None
        if element is not None:
            dx[concat_ranges(starts[items], ends[items])] = element.numpy()
    return LoDTensor.unchecked(dx, x.offsets)


# -- array_to_lod_tensor ---------------------------------------------------------------------


def _merge_plan(array: LoDTensorArray, table, op_type: str):
    """(rows, lod): out = concat(elements)[rows] with LoD `lod` (the elements' LoD included)."""
    elements = list(array)
    steps = table.max_len
    if len(elements) < steps or any(e is None for e in elements[:steps]):
        raise KernelError(f"{op_type}: the array holds {len(elements)} elements, but the "
                          f"longest sequence has {steps} steps")
    elements = elements[:steps]
    if not elements:
        raise KernelError(f"{op_type}: no sequence has a step, so there is nothing to join",
                          hint="feed at least one non-empty sequence")
    sub_levels = elements[0].lod_level
    item_starts, item_ends, counts, base = [], [], [], 0
    for t, e in enumerate(elements):
        s, en = item_rows(e.offsets, 0, e.shape[0])
        if s.size != table.active(t):
            raise KernelError(f"{op_type}: element {t} holds {s.size} items, but "
                              f"{table.active(t)} sequences are longer than {t}")
        if e.lod_level != sub_levels:
            raise KernelError(f"{op_type}: element {t} has {e.lod_level} LoD levels, element "
                              f"0 has {sub_levels}")
        item_starts.append(s + base)
        item_ends.append(en + base)
        counts.append(s.size)
        base += e.shape[0]
    item_base = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    n = len(table)
    position = np.empty(n, np.int64)
    position[table.indices] = np.arange(n)
    lengths = np.empty(n, np.int64)
    lengths[table.indices] = table.lengths
    step = concat_ranges(np.zeros(n, np.int64), lengths)   # t for every (sequence, t)
    flat = item_base[step] + np.repeat(position, lengths)    # the item's index in the concat
    starts, ends = np.concatenate(item_starts), np.concatenate(item_ends)
    rows = concat_ranges(starts[flat], ends[flat])
    joined = tuple(lengths_to_offsets([np.concatenate([np.diff(e.offsets[d])
                                                       for e in elements])])[0]
                   for d in range(sub_levels))
    lod = (tuple(table.coarse_offsets) + tuple(lengths_to_offsets([lengths]))
           + sub_lod(joined, 0, flat))
    return elements, rows, lod


to_tensor = register_op(
    "array_to_lod_tensor",
    inputs=[In("X", "one element per step"), In("RankTable", "the rank table")],
    outputs=[Out("Out", "the items in their sequences' original order, with LoD")],
    key_inputs=[],
    doc=__doc__,
)


@to_tensor.infer_var_type
def _(ctx):
    ctx.set_output_type("Out", LOD_TENSOR)


@to_tensor.infer_shape
def _(ctx):
    array = ctx.var_info(ctx.input_names("X")[0])
    if array.shape is not None:
        ctx.set_output("Out", (-1,) + tuple(array.shape[1:]), array.dtype)
    ctx.set_output_lod_level("Out", ctx.input_lod_level("RankTable") + array.lod_level)


@to_tensor.kernel(storage=[], dtypes=CONTROL_DTYPES, lod=True)
def array_to_lod_tensor_kernel(attrs, x, table):
    elements, rows, lod = _merge_plan(x, table, "array_to_lod_tensor")
    data = np.concatenate([e.numpy() for e in elements])
    return LoDTensor.unchecked(data[rows], lod)


@to_tensor.grad_maker
def _(g):
    return [g.grad_op("array_to_lod_tensor_grad",
                      inputs={"X": g.input("X"), "RankTable": g.input("RankTable"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")})]


to_tensor_grad = register_op(
    "array_to_lod_tensor_grad",
    inputs=[In("X"), In("RankTable"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", "Out@GRAD split back into one element per step")],
    key_inputs=[],
    doc="The gradient of array_to_lod_tensor.",
)


@to_tensor_grad.infer_var_type
def _(ctx):
    ctx.set_output_type("X@GRAD", LOD_TENSOR_ARRAY)


@to_tensor_grad.infer_shape
def _(ctx):
    array = ctx.var_info(ctx.input_names("X")[0])
    if array.shape is not None:
        ctx.set_output("X@GRAD", array.shape, array.dtype)
    ctx.set_output_lod_level("X@GRAD", array.lod_level)


@to_tensor_grad.kernel(storage=[], dtypes=CONTROL_DTYPES, lod=True)
def array_to_lod_tensor_grad_kernel(attrs, x, table, dout):
    elements, rows, _ = _merge_plan(x, table, "array_to_lod_tensor_grad")
    total = sum(e.shape[0] for e in elements)
    d = dout.numpy()
    joined = np.zeros((total,) + d.shape[1:], dtype=d.dtype)
    joined[rows] = d
    grads, base = [], 0
    for e in elements:
        grads.append(LoDTensor.unchecked(joined[base:base + e.shape[0]], e.offsets))
        base += e.shape[0]
    return LoDTensorArray(grads + [None] * (len(x) - len(elements)), d.dtype)


# -- shrink_rnn_memory -----------------------------------------------------------------------

shrink = register_op(
    "shrink_rnn_memory",
    inputs=[In("X", "a memory: one row (or top-level sequence) per running sequence"),
            In("RankTable", "the rank table"), In("I", "one-element int step")],
    outputs=[Out("Out", "the rows of the sequences longer than I")],
    key_inputs=[],
    doc=__doc__,
)


@shrink.infer_shape
def _(ctx):
    shape = ctx.input_shape("X")
    ctx.set_output("Out", (-1,) + tuple(shape[1:]), ctx.input_dtype("X"))
    ctx.set_output_lod_level("Out", ctx.input_lod_level("X"))


def _kept(x: LoDTensor, table, i) -> tuple[int, int]:
    """(sequences, rows) of X that belong to the sequences longer than I."""
    keep = table.active(index_of(i, "shrink_rnn_memory"))
    count = x.offsets[0].size - 1 if x.lod_level else x.shape[0]
    if keep > count:
        raise KernelError(f"shrink_rnn_memory: {keep} sequences run at this step, but X "
                          f"holds only {count}")
    if not x.lod_level:
        return keep, keep
    _, ends = item_rows(x.offsets, 0, x.shape[0])
    return keep, int(ends[keep - 1]) if keep else 0


@shrink.kernel(storage=[], dtypes=CONTROL_DTYPES, lod=True)
def shrink_rnn_memory_kernel(attrs, x, table, i):
    keep, rows = _kept(x, table, i)
    lod = sub_lod(x.offsets, 0, np.arange(keep)) if x.lod_level else ()
    return LoDTensor.unchecked(x.numpy()[:rows], lod)


@shrink.grad_maker
def _(g):
    return [g.grad_op("shrink_rnn_memory_grad",
                      inputs={"X": g.input("X"), "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")})]


shrink_grad = register_op(
    "shrink_rnn_memory_grad",
    inputs=[In("X"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", "Out@GRAD in X's first rows, zeros below")],
    key_inputs=[],
    doc="The gradient of shrink_rnn_memory.",
)


@shrink_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "X@GRAD")


@shrink_grad.kernel(storage=[], dtypes=CONTROL_DTYPES, lod=True)
def shrink_rnn_memory_grad_kernel(attrs, x, dout):
    d = dout.numpy()
    dx = np.zeros(x.shape, dtype=d.dtype)
    dx[:d.shape[0]] = d
    return LoDTensor.unchecked(dx, x.offsets)


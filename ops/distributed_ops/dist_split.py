"""split_ids, merge_ids, split_byref, sparse_table_grad: the local halves of parameter serving.

Pure array ops that the distribute transpiler puts around the communication
ops (ops/distributed_ops/dist_comm.py). A table sharded over n servers keeps row `id` on
server `id % n`, at local row `id // n` (Fluid's round-robin row sharding).

    split_ids         Ids (ids [N, 1] or a SelectedRows gradient) -> Out[k], shard k's part:
                      dense ids: the distinct ids with id % n == k, sorted, [n_k, 1];
                      SelectedRows: its rows with row % n == k (global ids, order and
                      duplicates kept) and their values, height unchanged.
    merge_ids         Out[i][j] = the row fetched for Ids[i][j], looked up among the
                      (Rows[k], X[k]) pairs the servers answered: the inverse of
                      split_ids + prefetch.
    split_byref       Out[b] = X[offset_b : offset_b + sections[b]] along dim 0 (views).
    split_selected_rows  Out[b] = the rows of SelectedRows X in [offset_b, offset_b +
                      height_sections[b]), renumbered from 0, height height_sections[b]:
                      Fluid's split of a sparse gradient into contiguous row blocks.
    interleave_rows   Out[id] = X[id % n][id // n]: a table from its n row shards.
    sparse_table_grad W@GRAD = SelectedRows(rows=Ids, value=Out@GRAD, height): the
                      is_sparse gradient of a lookup whose table is not on this machine.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError, OpLocation
from paddle_ir.core.kinds import STYPE_SELECTED_ROWS
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.ops.context import SELECTED_ROWS, shape_str
from paddle_ir.ops.registry import FLOATS, INTS, Attr, In, Out, register_op

# -- split_ids ---------------------------------------------------------------------------------
split_ids = register_op(
    "split_ids",
    inputs=[In("Ids", "int64 ids [N, 1] (several are concatenated), or one SelectedRows",
               duplicable=True)],
    outputs=[Out("Out", "one part per shard, in shard order", duplicable=True)],
    attrs=[Attr("num_shards", "int", 1, "how many servers hold the table (= len(Out))")],
    key_inputs=["Ids"],
    doc=__doc__,
)


@split_ids.infer_var_type
def _(ctx):
    sparse = ctx.input_var_type("Ids") == SELECTED_ROWS
    if sparse:
        ctx.set_output_type("Out", SELECTED_ROWS)


@split_ids.infer_shape
def _(ctx):
    shape = ctx.input_shape("Ids")
    sparse = ctx.input_var_type("Ids") == SELECTED_ROWS
    ctx.enforce(ctx.attr("num_shards") == len(ctx.output_names("Out")),
                lambda: f"num_shards {ctx.attr('num_shards')} must equal the number of Out "
                f"({len(ctx.output_names('Out'))})")
    for i in range(len(ctx.output_names("Out"))):
        ctx.set_output("Out", (-1,) + tuple(shape[1:]) if sparse else (-1, 1),
                       ctx.input_dtype("Ids"), i=i)


def shard_ids(ids: np.ndarray, shards: int) -> list[np.ndarray]:
    """The distinct ids of each shard (id % shards), sorted."""
    unique = np.unique(ids.reshape(-1))
    owner = unique % shards
    return [unique[owner == k] for k in range(shards)]


def _split_dense(attrs, ids, shards):
    flat = np.concatenate([i.reshape(-1) for i in ids]) if len(ids) > 1 else ids[0].reshape(-1)
    if flat.size and flat.min() < 0:
        raise KernelError(f"split_ids: Ids holds a negative id {int(flat.min())}",
                          op=OpLocation(op_type="split_ids"))
    return tuple(part.reshape(-1, 1).astype(np.int64, copy=False)
                 for part in shard_ids(flat, shards))


def split_rows(grad: SelectedRows, shards: int) -> list[SelectedRows]:
    owner = grad.rows % shards
    return [SelectedRows(grad.rows[owner == k], grad.value[owner == k], grad.height)
            for k in range(shards)]


@split_ids.kernel(dtypes=INTS)
def split_ids_dense(attrs, ids):
    return _split_dense(attrs, ids, attrs["num_shards"])


@split_ids.kernel(storage=[STYPE_SELECTED_ROWS], dtypes=FLOATS)
def split_ids_selected_rows(attrs, grads):
    if len(grads) != 1:
        raise KernelError("split_ids splits one SelectedRows at a time, got "
                          f"{len(grads)}", op=OpLocation(op_type="split_ids"))
    return tuple(split_rows(grads[0], attrs["num_shards"]))


# -- merge_ids ---------------------------------------------------------------------------------
merge_ids = register_op(
    "merge_ids",
    inputs=[In("Ids", "the original ids [N, 1]", duplicable=True),
            In("Rows", "the ids each shard answered for (split_ids' Out)", duplicable=True),
            In("X", "the rows each shard answered, [n_k, D]", duplicable=True)],
    outputs=[Out("Out", "[N, D] per Ids: the row of each id", duplicable=True)],
    attrs=[Attr("padding_idx", "long", -1, "an id whose row is zeros; -1: none"),
           Attr("trailing_one", "bool", True, "Ids end in a dim of 1 that Out replaces by D "
                "(lookup_table); False: Out = Ids.shape + [D] (lookup_table_v2)")],
    key_inputs=["X"],
    doc=__doc__,
)


@merge_ids.infer_shape
def _(ctx):
    width = ctx.input_shape("X")[1:]
    for i in range(ctx.input_count("Ids")):
        ids = ctx.input_shape("Ids", i)
        lead = ids[:-1] if ctx.attr("trailing_one") else ids
        ctx.set_output("Out", tuple(lead) + tuple(width), ctx.input_dtype("X"), i=i)
        ctx.share_lod("Ids", "Out", i, i)


@merge_ids.kernel(dtypes=FLOATS)
def merge_ids_kernel(attrs, ids, rows, xs):
    known = np.concatenate([r.reshape(-1) for r in rows])
    values = np.concatenate(xs)
    if known.size != values.shape[0]:
        raise KernelError(f"merge_ids: the shards answered {values.shape[0]} rows for "
                          f"{known.size} ids", op=OpLocation(op_type="merge_ids"))
    order = np.argsort(known, kind="stable")
    sorted_known = known[order]
    outs = []
    for wanted in ids:
        flat = wanted.reshape(-1)
        at = np.searchsorted(sorted_known, flat)
        at_clipped = np.minimum(at, max(sorted_known.size - 1, 0))
        if flat.size and (sorted_known.size == 0 or (sorted_known[at_clipped] != flat).any()):
            missing = flat[(sorted_known.size == 0) | (sorted_known[at_clipped] != flat)]
            raise KernelError(f"merge_ids: no shard answered id {int(missing[0])}",
                              op=OpLocation(op_type="merge_ids"))
        out = values.take(order[at_clipped], axis=0)
        if attrs["padding_idx"] >= 0:
            out[flat == attrs["padding_idx"]] = 0
        lead = wanted.shape[:-1] if attrs["trailing_one"] else wanted.shape
        outs.append(out.reshape(lead + values.shape[1:]))
    return outs


# -- split_byref -------------------------------------------------------------------------------
split_byref = register_op(
    "split_byref",
    inputs=[In("X", "a dense tensor")],
    outputs=[Out("Out", "consecutive row blocks of X (views)", duplicable=True)],
    attrs=[Attr("sections", "ints", [], "rows per block; they add up to X.shape[0]")],
    doc=__doc__,
)


@split_byref.infer_shape
def _(ctx):
    x, sections = ctx.input_shape("X"), ctx.attr("sections")
    ctx.enforce(len(sections) == len(ctx.output_names("Out")),
                lambda: f"sections {sections} must name one size per Out "
                f"({len(ctx.output_names('Out'))})")
    ctx.enforce(x[0] < 0 or sum(sections) == x[0], lambda:
                f"sections {sections} must add up to X.shape[0] = {x[0]} (X {shape_str(x)})")
    for i, rows in enumerate(sections):
        ctx.set_output("Out", (rows,) + tuple(x[1:]), ctx.input_dtype("X"), i=i)


@split_byref.kernel(dtypes=FLOATS)
def split_byref_kernel(attrs, x):
    bounds = np.cumsum(attrs["sections"])[:-1]
    return tuple(np.split(x, bounds, axis=0))


# -- split_selected_rows -----------------------------------------------------------------------
split_selected_rows = register_op(
    "split_selected_rows",
    inputs=[In("X", "a SelectedRows")],
    outputs=[Out("Out", "one SelectedRows per row block", duplicable=True)],
    attrs=[Attr("height_sections", "longs", [], "rows per block; they add up to X's height")],
    key_inputs=["X"],
    doc=__doc__,
)


@split_selected_rows.infer_var_type
def _(ctx):
    ctx.set_output_type("Out", SELECTED_ROWS)


@split_selected_rows.infer_shape
def _(ctx):
    x, sections = ctx.input_shape("X"), ctx.attr("height_sections")
    ctx.enforce(ctx.input_var_type("X") == SELECTED_ROWS,
                "X must be a SelectedRows (split_byref splits a dense tensor)")
    ctx.enforce(len(sections) == len(ctx.output_names("Out")) and len(sections) > 0,
                lambda: f"height_sections {list(sections)} must name one height per Out "
                f"({len(ctx.output_names('Out'))})")
    ctx.enforce(all(h > 0 for h in sections),
                lambda: f"height_sections {list(sections)} must all be positive")
    ctx.enforce(x[0] < 0 or sum(sections) == x[0],
                lambda: f"height_sections {list(sections)} must add up to X's height {x[0]}")
    for i, height in enumerate(sections):
        ctx.set_output("Out", (height,) + tuple(x[1:]), ctx.input_dtype("X"), i=i)


@split_selected_rows.kernel(storage=[STYPE_SELECTED_ROWS], dtypes=FLOATS)
def split_selected_rows_kernel(attrs, x):
    sections = np.asarray(attrs["height_sections"], dtype=np.int64)
    if int(sections.sum()) != x.height:
        raise KernelError(f"split_selected_rows: height_sections {sections.tolist()} add up to "
                          f"{int(sections.sum())}, but X's height is {x.height}",
                          op=OpLocation(op_type="split_selected_rows"))
    bounds = np.concatenate([[0], np.cumsum(sections)])
    block = np.searchsorted(bounds, x.rows, side="right") - 1  # rows are < height: in range
    return tuple(SelectedRows(x.rows[block == b] - bounds[b], x.value[block == b], int(h))
                 for b, h in enumerate(sections.tolist()))


# -- interleave_rows ---------------------------------------------------------------------------
interleave_rows = register_op(
    "interleave_rows",
    inputs=[In("X", "the shards, shard k holding rows k, k + n, k + 2n, ...", duplicable=True)],
    outputs=[Out("Out", "the whole table")],
    doc=__doc__,
)


@interleave_rows.infer_shape
def _(ctx):
    shapes = ctx.input_shapes("X")
    rows = -1 if any(s[0] < 0 for s in shapes) else sum(s[0] for s in shapes)
    ctx.set_output("Out", (rows,) + tuple(shapes[0][1:]), ctx.input_dtype("X"))


@interleave_rows.kernel(dtypes=FLOATS)
def interleave_rows_kernel(attrs, shards):
    n = len(shards)
    height = sum(s.shape[0] for s in shards)
    for k, shard in enumerate(shards):
        if shard.shape[0] != (height - k + n - 1) // n:
            raise KernelError(f"interleave_rows: shard {k} of {n} holds {shard.shape[0]} rows; "
                              f"a table of {height} rows gives it {(height - k + n - 1) // n}",
                              op=OpLocation(op_type="interleave_rows"))
    out = np.empty((height,) + shards[0].shape[1:], dtype=shards[0].dtype)
    for k, shard in enumerate(shards):
        out[k::n] = shard
    return out


# -- sparse_table_grad -------------------------------------------------------------------------
sparse_table_grad = register_op(
    "sparse_table_grad",
    inputs=[In("Ids", "the looked-up ids"), In("Out@GRAD", "the gradient of the lookup")],
    outputs=[Out("W@GRAD", "a SelectedRows of height `height`")],
    attrs=[Attr("height", "long", doc="the table's row count"),
           Attr("padding_idx", "long", -1, "an id that gets no gradient; -1: none")],
    key_inputs=["Out@GRAD"],
    doc=__doc__,
)


@sparse_table_grad.infer_var_type
def _(ctx):
    ctx.set_output_type("W@GRAD", SELECTED_ROWS)


@sparse_table_grad.infer_shape
def _(ctx):
    dout = ctx.input_shape("Out@GRAD")
    ctx.enforce(ctx.attr("height") > 0,
                lambda: f"height must be positive, got {ctx.attr('height')}")
    ctx.set_output("W@GRAD", (ctx.attr("height"), dout[-1]), ctx.input_dtype("Out@GRAD"))


@sparse_table_grad.kernel(dtypes=FLOATS)
def sparse_table_grad_kernel(attrs, ids, dout):
    flat = ids.reshape(-1).astype(np.int64, copy=False)
    values = dout.reshape(flat.size, -1)
    padding = attrs["padding_idx"]
    if padding >= 0:
        keep = flat != padding
        flat, values = flat[keep], values[keep]
    return SelectedRows(flat, values, attrs["height"])

"""split_lod_tensor: Fluid's IfElse splits its input by a mask (Paddle 1.8's
split_lod_tensor_op.cc; the old layers.IfElse inserts it, merge_lod_tensor undoes it).

    OutTrue, OutFalse = split_lod_tensor(X, Mask, level=0)

Mask is a bool [N, 1] column, one entry per item of X: per sequence of X's LoD level
`level`, or per row when X has no LoD (then level must be 0). OutTrue takes the items
whose entry is true, OutFalse the others, each in X's order, with every row below the
item and the LoD of levels `level` and finer (levels above `level` are dropped; the
merge takes them back from X). An empty branch has zero rows.

    dX = merge_lod_tensor(X, Mask, dOutTrue, dOutFalse, level)  (Paddle's grad maker)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.controlflow.rank_table import concat_ranges, sub_lod
from paddle_ir.ops.registry import ALL_DTYPES, Attr, In, Out, register_op

LEVEL = Attr("level", "int", 0, "the LoD level whose sequences the mask selects")


def check_mask_shape(ctx, op_type: str) -> None:
    """Paddle's rule: Mask is a [N, 1] column (layers.IfElse's cond)."""
    shape = ctx.input_shape("Mask")
    ctx.enforce(shape is None or (len(shape) == 2 and shape[1] in (1, -1)),
                lambda: f"Mask must be a [N, 1] bool column (IfElse's cond), got shape "
                f"{None if shape is None else list(shape)}")
    ctx.enforce(ctx.attr("level") >= 0, lambda: f"level must be >= 0, got {ctx.attr('level')}")


def mask_entries(mask, count: int, op_type: str, what: str) -> np.ndarray:
    """The mask as a bool vector of `count` entries, or an error saying what it should be."""
    m = np.asarray(mask.numpy() if isinstance(mask, LoDTensor) else mask)
    if m.size != count:
        raise KernelError(f"{op_type}: Mask has {m.size} entries, but {what} has {count} "
                          f"items to select", hint="give one mask entry per sequence at "
                                                   "`level` (per row without LoD)")
    return m.reshape(-1).astype(bool)


def item_count(offsets: tuple, level: int, rows: int, op_type: str, name: str) -> int:
    """How many items (sequences at `level`, or rows without LoD) `name` holds."""
    if not offsets:
        if level != 0:
            raise KernelError(f"{op_type}: {name} has no LoD, so level must be 0, got {level}")
        return rows
    if level >= len(offsets):
        raise KernelError(f"{op_type}: level {level} is out of range: {name} has "
                          f"{len(offsets)} LoD level(s)")
    return offsets[level].size - 1


def item_rows(offsets: tuple, level: int, ids: np.ndarray) -> np.ndarray:
    """The rows under items `ids` (at `level`), in order."""
    rows = np.asarray(ids, dtype=np.int64)
    for lv in offsets[level:]:
        rows = concat_ranges(lv[rows], lv[rows + 1])
    return rows


split_lod_tensor = register_op(
    "split_lod_tensor",
    inputs=[In("X", "the LoDTensor to split"), In("Mask", "bool [N, 1], one per item")],
    outputs=[Out("OutTrue", "the items whose mask is true"),
             Out("OutFalse", "the items whose mask is false")],
    attrs=[LEVEL],
    key_inputs=["X"],
    doc=__doc__,
)


@split_lod_tensor.infer_shape
def _(ctx):
    check_mask_shape(ctx, "split_lod_tensor")
    shape, dtype = ctx.input_shape("X"), ctx.input_dtype("X")
    out = None if shape is None else (-1,) + tuple(shape[1:])
    for slot in ("OutTrue", "OutFalse"):
        ctx.set_output(slot, out, dtype)
    level = max(ctx.var_info(ctx.input_names("X")[0]).lod_level - ctx.attr("level"), 0)
    ctx.set_output_lod_level("OutTrue", level)
    ctx.set_output_lod_level("OutFalse", level)


@split_lod_tensor.kernel(dtypes=ALL_DTYPES, lod=True)
def split_lod_tensor_kernel(attrs, x, mask):
    level, offsets, data = attrs["level"], x.offsets, x.numpy()
    count = item_count(offsets, level, data.shape[0], "split_lod_tensor", "X")
    m = mask_entries(mask, count, "split_lod_tensor", "X")
    outs = []
    for ids in (np.flatnonzero(m), np.flatnonzero(~m)):
        if not offsets:
            outs.append(LoDTensor.unchecked(data[ids]))
        else:
            outs.append(LoDTensor.unchecked(data[item_rows(offsets, level, ids)],
                                            sub_lod(offsets, level, ids)))
    return tuple(outs)


@split_lod_tensor.grad_maker
def _(g):
    return [g.grad_op("merge_lod_tensor",
                      inputs={"X": g.input("X"), "Mask": g.input("Mask"),
                              "InTrue": g.output_grad("OutTrue"),
                              "InFalse": g.output_grad("OutFalse")},
                      outputs={"Out": g.input_grad("X")},
                      attrs={"level": g.attr("level")})]

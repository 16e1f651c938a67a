"""merge_lod_tensor: Fluid's IfElse joins its branches back by the mask (Paddle 1.8's
merge_lod_tensor_op.cc; the inverse of split_lod_tensor).

    Out = merge_lod_tensor(X, Mask, InTrue, InFalse, level=0)

Walking the mask in order, item i of Out is the next item (top-level sequence, or row
without LoD) of InTrue when Mask[i] is true, else of InFalse, with all rows and finer
LoD under it. X only lends the LoD levels above `level`, which are put back on top.
Each branch must hold as many items as the mask selects for it; a branch that was
never taken may be empty (zero rows).

One deliberate difference: Paddle's loop does not move past an empty sequence of a
branch (its index only advances when the item has rows), so a branch holding an empty
sequence is merged misaligned; here every item advances its branch.

    dInTrue, dInFalse = split_lod_tensor(dOut, Mask, level)   (Paddle's grad maker)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError, PaddleIRError
from paddle_ir.core.lod_tensor import LoDTensor, lengths_to_offsets, validate_offsets
from paddle_ir.ops.controlflow.rank_table import concat_ranges
from paddle_ir.ops.controlflow.split_lod_tensor import (
    LEVEL,
    check_mask_shape,
    item_count,
    mask_entries,
)
from paddle_ir.ops.registry import ALL_DTYPES, In, Out, register_op

merge_lod_tensor = register_op(
    "merge_lod_tensor",
    inputs=[In("X", "lends Out its LoD levels above `level`"),
            In("Mask", "bool [N, 1], one per item of Out"),
            In("InTrue", "the items for true entries"),
            In("InFalse", "the items for false entries")],
    outputs=[Out("Out", "the items merged in mask order")],
    attrs=[LEVEL],
    key_inputs=["InTrue"],
    doc=__doc__,
)


@merge_lod_tensor.infer_shape
def _(ctx):
    check_mask_shape(ctx, "merge_lod_tensor")
    t, f = ctx.input_shape("InTrue"), ctx.input_shape("InFalse")
    ctx.enforce(t is None or f is None or len(t) == len(f) and all(
        a == b or -1 in (a, b) for a, b in zip(t[1:], f[1:], strict=True)),
        lambda: f"InTrue {None if t is None else list(t)} and InFalse "
        f"{None if f is None else list(f)} must agree in all but the first dim")
    ctx.enforce(ctx.input_dtype("InTrue") is None or ctx.input_dtype("InFalse") is None
                or ctx.input_dtype("InTrue") == ctx.input_dtype("InFalse"),
                lambda: f"InTrue has dtype {ctx.input_dtype('InTrue')} but InFalse "
                f"{ctx.input_dtype('InFalse')}", hint="insert a cast op")
    ctx.set_output("Out", None if t is None else (-1,) + tuple(t[1:]),
                   ctx.input_dtype("InTrue"))
    branch = ctx.var_info(ctx.input_names("InTrue")[0]).lod_level
    ctx.set_output_lod_level("Out", branch + ctx.attr("level"))


def _merged(branches, m: np.ndarray):
    """Rows (into the branches' rows stacked true-first) and LoD levels of the merge."""
    sources = np.where(m, 0, 1)
    ids = np.empty(m.size, np.int64)  # each item's index within its branch
    for s in (0, 1):
        ids[sources == s] = np.arange(int((sources == s).sum()))
    levels = max((len(b.offsets) for b in branches if b.numpy().shape[0] or b.offsets),
                 default=0)
    starts, ends = ids.copy(), ids + 1
    row_shift = np.array([0, branches[0].numpy().shape[0]])
    lod = []
    for j in range(levels):
        lengths = []
        for b in branches:
            off = b.offsets[j] if j < len(b.offsets) else np.zeros(1, np.int64)
            lengths.append(np.diff(off))
        shift = np.array([0, lengths[0].size])
        # each item's range of level-j entries, in the stacked numbering
        picked = concat_ranges(starts + shift[sources], ends + shift[sources])
        lod.append(lengths_to_offsets([np.concatenate(lengths)[picked]])[0])
        new_starts, new_ends = np.empty_like(starts), np.empty_like(ends)
        for s, b in enumerate(branches):
            sel = sources == s
            if sel.any():
                off = b.offsets[j]
                new_starts[sel], new_ends[sel] = off[starts[sel]], off[ends[sel]]
        starts, ends = new_starts, new_ends
    rows = concat_ranges(starts + row_shift[sources], ends + row_shift[sources])
    return rows, lod


@merge_lod_tensor.kernel(dtypes=ALL_DTYPES, lod=True)
def merge_lod_tensor_kernel(attrs, x, mask, in_true, in_false):
    level = attrs["level"]
    branches = (in_true, in_false)
    t, f = in_true.numpy(), in_false.numpy()
    if t.shape[1:] != f.shape[1:] or t.dtype != f.dtype:
        raise KernelError(f"merge_lod_tensor: InTrue {list(t.shape)} {t.dtype} and InFalse "
                          f"{list(f.shape)} {f.dtype} must agree in dtype and all but the "
                          f"first dim")
    m = np.asarray(mask.numpy() if isinstance(mask, LoDTensor) else mask).reshape(-1)
    m = mask_entries(m, m.size, "merge_lod_tensor", "Mask")
    lod_levels = {len(b.offsets) for b in branches if b.numpy().shape[0]}
    if len(lod_levels) > 1:
        raise KernelError("merge_lod_tensor: InTrue and InFalse have different LoD levels "
                          f"({len(in_true.offsets)} and {len(in_false.offsets)})")
    for b, name, want in ((in_true, "InTrue", int(m.sum())),
                          (in_false, "InFalse", int((~m).sum()))):
        have = item_count(b.offsets, 0, b.numpy().shape[0], "merge_lod_tensor", name) \
            if b.numpy().shape[0] or b.offsets else 0
        if have != want:
            raise KernelError(f"merge_lod_tensor: the mask selects {want} items of {name}, "
                              f"but it holds {have}",
                              hint="give the branches split_lod_tensor made with this mask")
    if level and len(x.offsets) < level:
        raise KernelError(f"merge_lod_tensor: level {level} needs X to have at least "
                          f"{level} LoD level(s), it has {len(x.offsets)}")
    rows, lod = _merged(branches, m)
    out = np.concatenate([t, f])[rows]
    offsets = tuple(x.offsets[:level]) + tuple(lod)
    try:
        validate_offsets(offsets, out.shape[0])
    except (PaddleIRError, ValueError) as exc:
        raise KernelError(f"merge_lod_tensor: X's LoD above level {level} does not fit the "
                          f"merged items: {exc}") from None
    return LoDTensor.unchecked(out, offsets)


@merge_lod_tensor.grad_maker
def _(g):
    return [g.grad_op("split_lod_tensor",
                      inputs={"X": g.output_grad("Out"), "Mask": g.input("Mask")},
                      outputs={"OutTrue": g.input_grad("InTrue"),
                               "OutFalse": g.input_grad("InFalse")},
                      attrs={"level": g.attr("level")})]

"""target_assign: gathers each prior's target from its matched ground truth (SSD).

X [P, Q, K] with one LoD level (instance i owns rows off_i .. off_{i+1}); MatchIndices
int32 [N, M] (bipartite_match's output). For instance i and prior j:

    id = MatchIndices[i, j]
    id > -1:  Out[i, j] = X[off_i + id, j mod Q],  OutWeight[i, j] = 1
    else:     Out[i, j] = mismatch_value,          OutWeight[i, j] = 0

Then NegIndices (int32 [*, 1], one LoD level: instance i's negative priors), if given,
sets Out[i, n] = mismatch_value and OutWeight[i, n] = 1 for each of its n. Out is
[N, M, K] in X's dtype (int32 class labels or float boxes), OutWeight float32
[N, M, 1]. No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

target_assign = register_op(
    "target_assign",
    inputs=[In("X", "[P, Q, K], 1 LoD level: the rows of each instance"),
            In("MatchIndices", "int32 [N, M]: matched row per prior, -1 for none"),
            In("NegIndices", "int32 [*, 1], 1 LoD level: negative priors", dispensable=True)],
    outputs=[Out("Out", "[N, M, K]"), Out("OutWeight", "float32 [N, M, 1]")],
    attrs=[Attr("mismatch_value", "int", 0, "the target of unmatched and negative priors")],
    doc=__doc__,
)


@target_assign.infer_shape
def _(ctx):
    x, match = ctx.input_shape("X"), ctx.input_shape("MatchIndices")
    ctx.enforce(len(x) == 3, lambda: f"X must be [P, Q, K], got {shape_str(x)}")
    ctx.enforce(ctx.input_lod_level("X") == 1,
                lambda: f"X must have 1 LoD level (the rows of each instance), got "
                f"{ctx.input_lod_level('X')}")
    ctx.enforce(len(match) == 2, lambda: f"MatchIndices must be [N, M], got {shape_str(match)}")
    ctx.enforce(np.dtype(ctx.input_dtype("MatchIndices")) == np.int32,
                lambda: f"MatchIndices must be int32, got {ctx.input_dtype('MatchIndices')}")
    if ctx.has_input("NegIndices"):
        ctx.enforce(ctx.input_lod_level("NegIndices") == 1,
                    "NegIndices must have 1 LoD level (the negatives of each instance)")
    ctx.set_output("Out", [match[0], match[1], x[2]], ctx.input_dtype("X"))
    ctx.set_output("OutWeight", [match[0], match[1], 1], np.float32)


# int32 as in Paddle, which registers it for the labels SSD assigns
@target_assign.kernel(dtypes=(np.dtype(np.int32), *FLOATS), lod=True)
def target_assign_kernel(attrs, x, match, neg):
    data, ids = x.numpy(), np.asarray(match.numpy() if hasattr(match, "numpy") else match)
    offsets = x.offsets[-1]
    n, m = ids.shape
    q = data.shape[1]
    if offsets.size - 1 != n:
        raise ValueError(f"target_assign: X's LoD has {offsets.size - 1} instances, but "
                         f"MatchIndices has {n} rows")
    matched = ids > -1
    rows = offsets[:-1, None] + ids
    sizes = np.diff(offsets)[:, None]
    if (ids >= sizes).any():
        bad = np.argwhere(ids >= sizes)[0]
        raise ValueError(f"target_assign: MatchIndices[{bad[0]}, {bad[1]}] = "
                         f"{ids[bad[0], bad[1]]} is beyond instance {bad[0]}'s "
                         f"{sizes[bad[0], 0]} rows of X")
    cols = np.arange(m) % q
    out = np.full((n, m, data.shape[2]), attrs["mismatch_value"], data.dtype)
    out[matched] = data[rows[matched], np.broadcast_to(cols, (n, m))[matched]]
    weight = matched.astype(np.float32)[..., None]
    if neg is not None:
        neg_ids = np.asarray(neg.numpy()).reshape(-1).astype(np.int64)
        neg_off = neg.offsets[-1]
        if neg_off.size - 1 != n:
            raise ValueError(f"target_assign: NegIndices' LoD has {neg_off.size - 1} "
                             f"instances, but MatchIndices has {n} rows")
        owner = np.repeat(np.arange(n), np.diff(neg_off))
        if neg_ids.size and (neg_ids.min() < 0 or neg_ids.max() >= m):
            raise ValueError(f"target_assign: NegIndices must lie in [0, {m}), got "
                             f"{neg_ids.min()}..{neg_ids.max()}")
        out[owner, neg_ids] = attrs["mismatch_value"]
        weight[owner, neg_ids] = 1.0
    return out, weight

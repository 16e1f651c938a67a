"""bipartite_match: SSD's matching of ground-truth boxes (rows) to priors (columns).

DistMat [R, C] (a similarity, e.g. IoU), its LoD splitting the rows into instances (no
LoD: one instance). Per instance, greedily: take the largest entry whose row and column
are both unmatched and whose value is positive, match them, repeat (Paddle's order:
the largest first; ties go to the earlier row, then the earlier column). With
match_type 'per_prediction', each column still unmatched then takes its best row when
that similarity is >= dist_threshold.

ColToRowMatchIndices [N, C] int32: the matched row within the instance, or -1;
ColToRowMatchDist [N, C]: the matched similarity, or 0. No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

MATCH_TYPES = ("bipartite", "per_prediction")

bipartite_match = register_op(
    "bipartite_match",
    inputs=[In("DistMat", "[R, C] similarities, LoD: the rows of each instance")],
    outputs=[Out("ColToRowMatchIndices", "int32 [N, C]"),
             Out("ColToRowMatchDist", "[N, C]")],
    attrs=[Attr("match_type", "string", "bipartite", "bipartite or per_prediction"),
           Attr("dist_threshold", "float", 0.5, "per_prediction's least similarity")],
    doc=__doc__,
)


@bipartite_match.infer_shape
def _(ctx):
    dist = ctx.input_shape("DistMat")
    ctx.enforce(len(dist) == 2, lambda: f"DistMat must be [rows, columns], got {shape_str(dist)}")
    ctx.enforce(ctx.attr("match_type") in MATCH_TYPES,
                lambda: f"match_type must be bipartite or per_prediction, got "
                f"{ctx.attr('match_type')!r}")
    level = ctx.input_lod_level("DistMat")
    ctx.enforce(level <= 1, lambda: f"DistMat must have at most 1 LoD level, got {level}")
    n = 1 if level == 0 else -1
    ctx.set_output("ColToRowMatchIndices", [n, dist[1]], np.int32)
    ctx.set_output("ColToRowMatchDist", [n, dist[1]], ctx.input_dtype("DistMat"))


def match_one(dist: np.ndarray, match_type: str, threshold: float):
    """(indices [C], distances [C]) of one instance's [R, C] similarities."""
    rows, cols = dist.shape
    index = np.full(cols, -1, np.int32)
    value = np.zeros(cols, dist.dtype)
    if rows and cols:
        # One match per step: at most min(R, C) steps, each a vectorised argmax.
        open_ = np.where(dist > 0, dist, -np.inf)
        for _ in range(min(rows, cols)):
            flat = int(np.argmax(open_))  # row-major: ties to the earlier row, then column
            r, c = divmod(flat, cols)
            if not np.isfinite(open_[r, c]):
                break
            index[c], value[c] = r, dist[r, c]
            open_[r, :] = -np.inf
            open_[:, c] = -np.inf
        if match_type == "per_prediction":
            free = index == -1
            best = np.argmax(dist, axis=0)
            best_value = dist[best, np.arange(cols)]
            take = free & (best_value >= threshold)
            index[take], value[take] = best[take], best_value[take]
    return index, value


@bipartite_match.kernel(dtypes=FLOATS, lod=True)
def bipartite_match_kernel(attrs, dist):
    data = dist.numpy()
    offsets = dist.offsets[0] if dist.lod_level else np.array([0, data.shape[0]])
    results = [match_one(data[a:b], attrs["match_type"], attrs["dist_threshold"])
               for a, b in zip(offsets[:-1], offsets[1:], strict=True)]
    cols = data.shape[1]
    if not results:
        return np.zeros((0, cols), np.int32), np.zeros((0, cols), data.dtype)
    return (np.stack([r[0] for r in results]), np.stack([r[1] for r in results]))

"""mine_hard_examples: picks each instance's hardest negative priors (SSD's hard mining).

ClsLoss, MatchDist [N, Np] (float), LocLoss [N, Np] (optional), MatchIndices int32
[N, Np] (bipartite_match's output). For instance n, the eligible priors are

    max_negative:  MatchIndices[n, m] == -1 and MatchDist[n, m] < neg_dist_threshold
    hard_example:  every prior

ranked by loss (ClsLoss, plus LocLoss in hard_example mode when given), highest first;
the top `sel` of them are selected, with

    max_negative:  sel = min(int(float32(num_pos * neg_pos_ratio)), eligible),
                   num_pos = the priors whose MatchIndices != -1
    hard_example:  sel = min(sample_size, Np)

NegIndices (int32 [*, 1], one LoD level, an instance's indices ascending) holds, in
max_negative mode, the selected priors; in hard_example mode the selected priors that
are unmatched (MatchIndices <= -1). UpdatedMatchIndices is MatchIndices, except in
hard_example mode matched priors (> -1) that were not selected become -1. No gradient.

Ties: Paddle ranks with std::sort (not stable), so among equal losses at the cut which
prior it keeps is unspecified; here the lower prior index wins (a stable sort).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

MINING_TYPES = ("max_negative", "hard_example")

mine_hard_examples = register_op(
    "mine_hard_examples",
    inputs=[In("ClsLoss", "[N, Np]: the classification loss of each prior"),
            In("LocLoss", "[N, Np]: the localization loss (hard_example adds it)",
               dispensable=True),
            In("MatchIndices", "int32 [N, Np]: matched row per prior, -1 for none"),
            In("MatchDist", "[N, Np]: the matched overlap per prior")],
    outputs=[Out("NegIndices", "int32 [*, 1], 1 LoD level: each instance's negatives"),
             Out("UpdatedMatchIndices", "int32 [N, Np]")],
    attrs=[Attr("neg_pos_ratio", "float", 1.0, "negatives per positive (max_negative)"),
           Attr("neg_dist_threshold", "float", 0.5,
                "a negative's overlap must be below it (max_negative)"),
           Attr("sample_size", "int", 0, "how many priors to keep (hard_example)"),
           Attr("mining_type", "string", "max_negative", "max_negative or hard_example")],
    doc=__doc__,
)


@mine_hard_examples.infer_shape
def _(ctx):
    cls = ctx.input_shape("ClsLoss")
    slots = ["ClsLoss", "MatchIndices", "MatchDist"]
    if ctx.has_input("LocLoss"):
        slots.insert(1, "LocLoss")
    for slot in slots:
        shape = ctx.input_shape(slot)
        ctx.enforce(len(shape) == 2, lambda: f"{slot} must be [N, Np], got {shape_str(shape)}")
        ctx.enforce(all(a < 0 or b < 0 or a == b for a, b in zip(cls, shape, strict=True)),
                    lambda: f"{slot} {shape_str(shape)} must have ClsLoss' shape {shape_str(cls)}")
    ctx.enforce(np.dtype(ctx.input_dtype("MatchIndices")) == np.int32,
                lambda: f"MatchIndices must be int32, got {ctx.input_dtype('MatchIndices')}")
    for slot in slots:
        if slot != "MatchIndices":
            ctx.enforce(np.dtype(ctx.input_dtype(slot)) == np.dtype(ctx.input_dtype("ClsLoss")),
                        lambda: f"{slot} must have ClsLoss' dtype "
                        f"{ctx.input_dtype('ClsLoss')}, got "
                        f"{ctx.input_dtype(slot)}")
    mining = ctx.attr("mining_type")
    ctx.enforce(mining in MINING_TYPES,
                lambda: f"mining_type must be one of {', '.join(MINING_TYPES)}, got {mining!r}")
    if mining == "max_negative":
        ctx.enforce(ctx.attr("neg_pos_ratio") > 0,
                    lambda: f"neg_pos_ratio must be > 0 in max_negative mode, got "
                    f"{ctx.attr('neg_pos_ratio')}")
        ctx.enforce(0 < ctx.attr("neg_dist_threshold") < 1,
                    lambda: f"neg_dist_threshold must lie in (0, 1) in max_negative mode, got "
                    f"{ctx.attr('neg_dist_threshold')}")
    else:
        ctx.enforce(ctx.attr("sample_size") > 0,
                    lambda: f"sample_size must be > 0 in hard_example mode, got "
                    f"{ctx.attr('sample_size')}")
    ctx.set_output("NegIndices", [-1, 1], np.int32)
    ctx.set_output_lod_level("NegIndices", 1)
    ctx.set_output("UpdatedMatchIndices", list(ctx.input_shape("MatchIndices")), np.int32)


def _mine_one(attrs, cls, loc, match, dist):
    """(negative priors ascending, the matched priors to unmatch) of one instance."""
    hard = attrs["mining_type"] == "hard_example"
    if hard:
        eligible = np.arange(match.size)
        loss = cls if loc is None else cls + loc
        sel = min(attrs["sample_size"], match.size)
    else:
        threshold = dist.dtype.type(attrs["neg_dist_threshold"])
        eligible = np.flatnonzero((match == -1) & (dist < threshold))
        loss = cls
        num_pos = np.float32(np.count_nonzero(match != -1))
        sel = min(int(num_pos * np.float32(attrs["neg_pos_ratio"])), eligible.size)
    order = eligible[np.argsort(-loss[eligible], kind="stable")]
    chosen = np.zeros(match.size, bool)
    chosen[order[:sel]] = True
    if not hard:
        return np.flatnonzero(chosen), np.zeros(match.size, bool)
    matched = match > -1
    return np.flatnonzero(chosen & ~matched), matched & ~chosen


@mine_hard_examples.kernel(dtypes=FLOATS, lod=True)
def mine_hard_examples_kernel(attrs, cls_loss, loc_loss, match_indices, match_dist):
    cls, dist = cls_loss.numpy(), match_dist.numpy()
    match = np.asarray(match_indices.numpy())
    loc = None if loc_loss is None else loc_loss.numpy()
    for name, value in (("LocLoss", loc), ("MatchIndices", match), ("MatchDist", dist)):
        if value is not None and value.shape != cls.shape:
            raise KernelError(f"mine_hard_examples: {name} is {shape_str(value.shape)}, but "
                              f"ClsLoss is {shape_str(cls.shape)}; they must match")
    updated = match.copy()
    negatives = []
    for n in range(match.shape[0]):
        neg, unmatch = _mine_one(attrs, cls[n], None if loc is None else loc[n],
                                 match[n], dist[n])
        negatives.append(neg)
        updated[n, unmatch] = -1
    offsets = np.concatenate([[0], np.cumsum([neg.size for neg in negatives])]).astype(np.int64)
    data = np.concatenate([np.zeros(0, np.int64), *negatives]).astype(np.int32).reshape(-1, 1)
    return LoDTensor.unchecked(data, (offsets,)), LoDTensor.unchecked(updated)

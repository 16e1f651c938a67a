"""positive_negative_pair: how many document pairs of each query a ranking score orders
right, as Paddle's kernel counts them (no gradient).

Rows are grouped by QueryID; within a query, each pair of rows (i before j) whose
labels differ counts with weight w = (Weight[i] + Weight[j]) / 2 (Weight 1 when absent),
with s = Score[:, column] (a negative column counts from the end):

    (s_i - s_j) * (Label_i - Label_j) > 0   ->  PositivePair += w
    otherwise                               ->  NegativePair += w
    s_i == s_j                              ->  NeutralPair  += w   (as well)

A tie in score counts as neutral and also as negative: that is what Paddle's
kernel does (its neutral branch does not skip the comparison after it), kept so
that the numbers agree. With the Accumulate* inputs the counts add to them.
Outputs are [1] of Score's dtype.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_ACCUMULATE = ("AccumulatePositivePair", "AccumulateNegativePair", "AccumulateNeutralPair")

positive_negative_pair = register_op(
    "positive_negative_pair",
    inputs=[In("Score", "[N, D] ranking scores"), In("Label", "[N, 1] relevance"),
            In("QueryID", "[N, 1] int query ids"),
            *(In(s, "[1] a running count", dispensable=True) for s in _ACCUMULATE),
            In("Weight", "[N, 1] row weights", dispensable=True)],
    outputs=[Out("PositivePair", "[1]"), Out("NegativePair", "[1]"),
             Out("NeutralPair", "[1]")],
    attrs=[Attr("column", "int", 0, "the column of Score ranked (negative: from the end)")],
    key_inputs=["Score"],
    doc=__doc__,
)


@positive_negative_pair.infer_shape
def _(ctx):
    score = ctx.input_shape("Score")
    ctx.enforce(len(score) == 2, lambda: f"Score must be [N, D], got {shape_str(score)}")
    for slot in ("Label", "QueryID", "Weight"):
        if ctx.has_input(slot):
            shape = ctx.input_shape(slot)
            ctx.enforce(len(shape) == 2 and shape[1] in (1, -1) and
                        (shape[0] < 0 or score[0] < 0 or shape[0] == score[0]), lambda:
                        f"{slot} must be [N, 1] with N = {score[0]}, got {shape_str(shape)}")
    ctx.enforce(ctx.input_dtype("QueryID").kind in "iu",
                lambda: f"QueryID must hold integers, got {ctx.input_dtype('QueryID')}")
    given = [ctx.has_input(s) for s in _ACCUMULATE]
    ctx.enforce(all(given) or not any(given), "give all three Accumulate* inputs or none")
    width, column = score[1], ctx.attr("column")
    ctx.enforce(width < 0 or -width <= column < width, lambda:
                f"column {column} is outside [-{width}, {width}) for Score {shape_str(score)}")
    for slot in ("PositivePair", "NegativePair", "NeutralPair"):
        ctx.set_output(slot, (1,), ctx.input_dtype("Score"))


@positive_negative_pair.kernel(dtypes=FLOATS)
def positive_negative_pair_kernel(attrs, score, label, query, acc_pos, acc_neg, acc_neu,
                                  weight):
    dtype = score.dtype.type
    s = score[:, attrs["column"] % score.shape[1]]
    label, query = label.reshape(-1), query.reshape(-1)
    w = np.ones(len(s), score.dtype) if weight is None else weight.reshape(-1)
    counts = [dtype(0), dtype(0), dtype(0)]
    if acc_pos is not None:
        counts = [dtype(a.reshape(-1)[0]) for a in (acc_pos, acc_neg, acc_neu)]
    groups: dict[int, list[int]] = {}
    for i, q in enumerate(query.tolist()):
        groups.setdefault(q, []).append(i)
    for rows in groups.values():
        r = np.asarray(rows)
        si, li, wi = s[r], label[r], w[r]
        upper = np.triu(np.ones((len(r), len(r)), bool), 1) & (li[:, None] != li[None, :])
        pair_w = ((wi[:, None] + wi[None, :]) * dtype(0.5))[upper]
        right = ((si[:, None] - si[None, :]) * (li[:, None] - li[None, :]) > 0)[upper]
        counts[0] += pair_w[right].sum(dtype=score.dtype)
        counts[1] += pair_w[~right].sum(dtype=score.dtype)
        counts[2] += pair_w[(si[:, None] == si[None, :])[upper]].sum(dtype=score.dtype)
    return tuple(np.asarray([c], score.dtype) for c in counts)

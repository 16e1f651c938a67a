"""box_decoder_and_assign: decodes one box per class for each prior (a Cascade R-CNN
head) and assigns each prior its best non-background class's box.

PriorBox [N, 4] (x1, y1, x2, y2, pixel convention: width x2 - x1 + 1), PriorBoxVar [4]
(Paddle reads its first four values), TargetBox [N, 4 C] deltas, BoxScore [N, C]. For
prior i and class j, with pw, ph, pcx, pcy the prior's size and centre:

    dw = min(v2 t2, box_clip),  dh = min(v3 t3, box_clip)
    cx = v0 t0 pw + pcx,  cy = v1 t1 ph + pcy,  w = exp(dw) pw,  h = exp(dh) ph
    DecodeBox[i, 4j:4j+4] = (cx - w / 2, cy - h / 2, cx + w / 2 - 1, cy + h / 2 - 1)

OutputAssignBox[i] is DecodeBox's box of the class j > 0 with the highest score (the first
on ties; the prior itself when C == 1). No gradient.
"""

from __future__ import annotations

import math

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

box_decoder_and_assign = register_op(
    "box_decoder_and_assign",
    inputs=[In("PriorBox", "[N, 4]"), In("PriorBoxVar", "[4]: the variances"),
            In("TargetBox", "[N, 4 C]: deltas per class"), In("BoxScore", "[N, C]")],
    outputs=[Out("DecodeBox", "[N, 4 C]"), Out("OutputAssignBox", "[N, 4]")],
    attrs=[Attr("box_clip", "float", math.log(1000.0 / 16.0), "the largest log-size delta")],
    doc=__doc__,
)


@box_decoder_and_assign.infer_shape
def _(ctx):
    prior, var = ctx.input_shape("PriorBox"), ctx.input_shape("PriorBoxVar")
    target, score = ctx.input_shape("TargetBox"), ctx.input_shape("BoxScore")
    ctx.enforce(len(prior) == 2 and prior[1] in (-1, 4),
                lambda: f"PriorBox must be [N, 4], got {shape_str(prior)}")
    ctx.enforce(any(d < 0 for d in var) or int(np.prod(var)) >= 4,
                lambda: f"PriorBoxVar must hold the 4 variances, got {shape_str(var)}")
    ctx.enforce(len(score) == 2, lambda: f"BoxScore must be [N, C], got {shape_str(score)}")
    ctx.enforce(len(target) == 2 and (target[1] < 0 or score[1] < 0
                                      or target[1] == 4 * score[1]),
                lambda: f"TargetBox must be [N, 4 C] for BoxScore {shape_str(score)}, got "
                f"{shape_str(target)}")
    ctx.enforce(all(d < 0 for d in (prior[0], target[0], score[0]))
                or len({d for d in (prior[0], target[0], score[0]) if d >= 0}) == 1,
                lambda: f"PriorBox {shape_str(prior)}, TargetBox {shape_str(target)} and BoxScore "
                f"{shape_str(score)} must have the same rows")
    dtype = ctx.input_dtype("PriorBox")
    ctx.set_output("DecodeBox", [prior[0], target[1]], dtype)
    ctx.set_output("OutputAssignBox", [prior[0], 4], dtype)


@box_decoder_and_assign.kernel(dtypes=FLOATS)
def box_decoder_and_assign_kernel(attrs, prior, var, target, score):
    dtype = prior.dtype.type
    n, classes = score.shape
    if target.shape != (n, 4 * classes) or prior.shape[0] != n:
        raise ValueError(f"box_decoder_and_assign: PriorBox {list(prior.shape)}, TargetBox "
                         f"{list(target.shape)} and BoxScore {list(score.shape)} disagree")
    v = np.asarray(var, prior.dtype).reshape(-1)[:4]
    t = target.reshape(n, classes, 4)
    pw = (prior[:, 2] - prior[:, 0] + 1)[:, None]
    ph = (prior[:, 3] - prior[:, 1] + 1)[:, None]
    pcx, pcy = prior[:, 0:1] + pw / 2, prior[:, 1:2] + ph / 2
    clip = dtype(attrs["box_clip"])
    dw, dh = np.minimum(v[2] * t[..., 2], clip), np.minimum(v[3] * t[..., 3], clip)
    cx, cy = v[0] * t[..., 0] * pw + pcx, v[1] * t[..., 1] * ph + pcy
    w, h = np.exp(dw) * pw, np.exp(dh) * ph
    decoded = np.stack([cx - w / 2, cy - h / 2, cx + w / 2 - 1, cy + h / 2 - 1], axis=-1)
    assigned = prior.astype(prior.dtype, copy=True)
    if classes > 1:
        best = np.argmax(score[:, 1:], axis=1) + 1  # the first maximum, background excluded
        # Paddle starts from a best score of -1: a row whose scores are all <= -1 keeps
        # its prior.
        found = score[np.arange(n), best] > -1
        assigned[found] = decoded[np.arange(n), best][found]
    return decoded.reshape(n, 4 * classes).astype(prior.dtype), assigned

"""label_smooth (+ _grad): Out = (1 - epsilon) X + epsilon * (PriorDist, or 1 / K);
dX = (1 - epsilon) dOut.
"""

from __future__ import annotations

from paddle_ir.ops.context import same_as_input
from paddle_ir.ops.registry import Attr, In, Out
from paddle_ir.ops.simple_op import register_simple


def _infer_label_smooth(ctx):
    eps = ctx.attr("epsilon")
    ctx.enforce(0.0 <= eps <= 1.0,
                lambda: f"epsilon must be in [0, 1] (the mass moved to the prior), "
                                   f"got {eps}")
    if ctx.has_input("PriorDist"):
        prior, x = ctx.input_shape("PriorDist"), ctx.input_shape("X")
        ctx.enforce(prior[-1] < 0 or x[-1] < 0 or prior[-1] == x[-1],
                    lambda: f"PriorDist must have X's last dim {x[-1]}, got shape {list(prior)}")
    same_as_input(ctx)


def _label_smooth(attrs, x, prior):
    eps = attrs["epsilon"]
    mix = eps / x.shape[-1] if prior is None else eps * prior.reshape(-1)
    return ((1 - eps) * x + mix).astype(x.dtype)


register_simple(
    "label_smooth", [In("X", "[..., K] one-hot labels"),
                     In("PriorDist", "[K] or [1, K]", dispensable=True)],
    [Out("Out", "X's shape")], [Attr("epsilon", "float", 0.0, "the smoothing weight")],
    _infer_label_smooth, _label_smooth,
    backward=lambda attrs, x, prior, dout: ((1 - attrs["epsilon"]) * dout).astype(dout.dtype),
    wrt=["X"], doc=__doc__)

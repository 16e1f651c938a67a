"""lars_momentum: momentum with a layer-wise adapted rate (LARS), in place. With
mu = `mu`, c = `lars_coeff`, wd = `lars_weight_decay`, p = ||Param||, g = ||Grad||:

    local_lr = lr * c * p / (g + wd * p)   when wd > 0, p > 0 and g > 0; else lr
    Velocity = mu * Velocity + local_lr * (Grad + wd * Param)
    Param -= Velocity

Fluid 1.7's LarsMomentumOptimizer. The norms are of the whole parameter, so a
SelectedRows Grad is densified first.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.optimizers.optimizer_common import infer_optimizer, scalar
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

lars_momentum = register_op(
    "lars_momentum",
    inputs=[In("Param"), In("Grad"), In("Velocity"), In("LearningRate", "a one-element tensor")],
    outputs=[Out("ParamOut", "the Param variable, updated in place"), Out("VelocityOut")],
    attrs=[Attr("mu", "float", doc="the momentum"),
           Attr("lars_coeff", "float", 0.001, "how far to trust the layer's norm ratio"),
           Attr("lars_weight_decay", "float", 0.0005, "weight decay inside the update")],
    key_inputs=["Grad"],
    dtype_from="Param",
    fallback=True,
    doc=__doc__,
)


@lars_momentum.infer_shape
def _(ctx):
    ctx.enforce(ctx.attr("lars_coeff") >= 0 and ctx.attr("lars_weight_decay") >= 0, lambda:
                f"lars_coeff and lars_weight_decay must be >= 0, got {ctx.attr('lars_coeff')} "
                f"and {ctx.attr('lars_weight_decay')}")
    infer_optimizer(ctx, state=("Velocity",))


@lars_momentum.kernel(dtypes=FLOATS)
def lars_momentum_dense(attrs, param, grad, velocity, learning_rate):
    lr = scalar(learning_rate, param.dtype)
    coeff, decay = attrs["lars_coeff"], attrs["lars_weight_decay"]
    p_norm, g_norm = np.linalg.norm(param), np.linalg.norm(grad)
    if decay > 0 and p_norm > 0 and g_norm > 0:
        lr = param.dtype.type(lr * coeff * p_norm / (g_norm + decay * p_norm))
    velocity *= param.dtype.type(attrs["mu"])
    velocity += lr * (grad + param.dtype.type(decay) * param)
    param -= velocity
    return param, velocity

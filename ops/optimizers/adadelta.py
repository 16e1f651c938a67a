"""adadelta: Zeiler's Adadelta, in place. With rho = `rho`, eps = `epsilon`:

    AvgSquaredGrad = rho * AvgSquaredGrad + (1 - rho) * Grad^2
    update = -sqrt((AvgSquaredUpdate + eps) / (AvgSquaredGrad + eps)) * Grad
    AvgSquaredUpdate = rho * AvgSquaredUpdate + (1 - rho) * update^2
    Param += lr * update

Fluid 1.x's op has no LearningRate (lr = 1: the ratio of the running averages is
the step size); Paddle 2.x's saved programs bind one, which then scales the step.
A SelectedRows Grad is densified first (every row's averages decay).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.optimizers.optimizer_common import infer_optimizer, scalar
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

adadelta = register_op(
    "adadelta",
    inputs=[In("Param"), In("Grad"), In("AvgSquaredGrad"), In("AvgSquaredUpdate"),
            In("LearningRate", "a one-element tensor (Paddle 2.x); absent in Fluid 1.x",
               dispensable=True)],
    outputs=[Out("ParamOut", "the Param variable, updated in place"),
             Out("AvgSquaredGradOut"), Out("AvgSquaredUpdateOut")],
    attrs=[Attr("rho", "float", 0.95, "decay of both running averages"),
           Attr("epsilon", "float", 1e-6, "keeps the ratio finite")],
    key_inputs=["Grad"],
    dtype_from="Param",
    fallback=True,
    doc=__doc__,
)


@adadelta.infer_shape
def _(ctx):
    ctx.enforce(0 <= ctx.attr("rho") < 1 and ctx.attr("epsilon") > 0,
                lambda: f"rho must be in [0, 1) and epsilon > 0, got rho={ctx.attr('rho')} and "
                f"epsilon={ctx.attr('epsilon')}")
    infer_optimizer(ctx, state=("AvgSquaredGrad", "AvgSquaredUpdate"))


@adadelta.kernel(dtypes=FLOATS)
def adadelta_dense(attrs, param, grad, avg_grad, avg_update, learning_rate):
    rho, eps = param.dtype.type(attrs["rho"]), param.dtype.type(attrs["epsilon"])
    avg_grad *= rho
    avg_grad += (1 - rho) * grad * grad
    update = -np.sqrt((avg_update + eps) / (avg_grad + eps)) * grad
    avg_update *= rho
    avg_update += (1 - rho) * update * update
    if learning_rate is not None:
        update *= scalar(learning_rate, param.dtype)
    param += update
    return param, avg_grad, avg_update

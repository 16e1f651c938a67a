"""rmsprop: in place (every `XOut` is its `X`). With rho = `decay`:

    MeanSquare = rho * MeanSquare + (1 - rho) * Grad^2
    centered:  MeanGrad = rho * MeanGrad + (1 - rho) * Grad
               Moment = momentum * Moment + lr * Grad / sqrt(MeanSquare - MeanGrad^2 + eps)
    otherwise: Moment = momentum * Moment + lr * Grad / sqrt(MeanSquare + eps)
    Param -= Moment

A SelectedRows Grad is densified first (rows without gradient still decay).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.optimizers.optimizer_common import infer_optimizer, scalar
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

rmsprop = register_op(
    "rmsprop",
    inputs=[In("Param"), In("MeanSquare"), In("MeanGrad", "used when centered"),
            In("LearningRate", "a one-element tensor"), In("Grad"), In("Moment")],
    outputs=[Out("ParamOut", "the Param variable, updated in place"), Out("MomentOut"),
             Out("MeanSquareOut"), Out("MeanGradOut")],
    attrs=[Attr("epsilon", "float", 1e-10, "keeps the root positive"),
           Attr("decay", "float", 0.9, "rho, the decay of the averages"),
           Attr("momentum", "float", 0.0, "the momentum of the step"),
           Attr("centered", "bool", False, "divide by the variance, not the second moment")],
    key_inputs=["Grad"],
    dtype_from="Param",
    doc=__doc__,
)
rmsprop.infer_shape(lambda ctx: infer_optimizer(
    ctx, state=("MeanSquare", "MeanGrad", "Moment")))


@rmsprop.kernel(dtypes=FLOATS)
def rmsprop_dense(attrs, param, mean_square, mean_grad, learning_rate, grad, moment):
    rho, eps = attrs["decay"], attrs["epsilon"]
    mean_square *= rho
    mean_square += (1 - rho) * grad * grad
    if attrs["centered"]:
        mean_grad *= rho
        mean_grad += (1 - rho) * grad
        denom = np.sqrt(mean_square - mean_grad * mean_grad + eps)
    else:
        denom = np.sqrt(mean_square + eps)
    moment *= attrs["momentum"]
    moment += scalar(learning_rate, param.dtype) * grad / denom
    param -= moment
    return param, moment, mean_square, mean_grad

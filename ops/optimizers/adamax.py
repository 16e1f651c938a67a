"""adamax: Adam with the infinity norm, in place (every `XOut` is its `X`). With
Beta1Pow = beta1^t on entry (the optimizer initializes it to beta1):

    Moment  = beta1 * Moment + (1 - beta1) * Grad
    InfNorm = max(beta2 * InfNorm + epsilon, |Grad|)
    Param  -= lr / (1 - beta1^t) * Moment / InfNorm
    Beta1Pow *= beta1                                    (ready for step t + 1)

A SelectedRows Grad is densified first.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.optimizers.optimizer_common import infer_optimizer, scalar
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

adamax = register_op(
    "adamax",
    inputs=[In("Param"), In("Grad"), In("LearningRate", "a one-element tensor"),
            In("Moment"), In("InfNorm"), In("Beta1Pow", "beta1^t, one element")],
    outputs=[Out("ParamOut", "the Param variable, updated in place"), Out("MomentOut"),
             Out("InfNormOut"), Out("Beta1PowOut")],
    attrs=[Attr("beta1", "float", 0.9, "decay of the moment"),
           Attr("beta2", "float", 0.999, "decay of the infinity norm"),
           Attr("epsilon", "float", 1e-8, "keeps the norm positive")],
    key_inputs=["Grad"],
    dtype_from="Param",
    doc=__doc__,
)
adamax.infer_shape(lambda ctx: infer_optimizer(ctx, state=("Moment", "InfNorm"),
                                               scalars=("Beta1Pow",)))


@adamax.kernel(dtypes=FLOATS)
def adamax_dense(attrs, param, grad, learning_rate, moment, inf_norm, beta1_pow):
    beta1, beta2 = attrs["beta1"], attrs["beta2"]
    moment *= beta1
    moment += (1 - beta1) * grad
    np.maximum(beta2 * inf_norm + attrs["epsilon"], np.abs(grad), out=inf_norm)
    lr_t = scalar(learning_rate, param.dtype) / (1 - beta1_pow.reshape(-1)[0])
    param -= (lr_t * moment / inf_norm).astype(param.dtype, copy=False)
    beta1_pow *= beta1
    return param, moment, inf_norm, beta1_pow

"""decayed_adagrad: Adagrad with a decaying moment, in place:

    Moment = decay * Moment + (1 - decay) * Grad^2
    Param -= lr * Grad / (sqrt(Moment) + epsilon)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.optimizers.optimizer_common import infer_optimizer, scalar
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

decayed_adagrad = register_op(
    "decayed_adagrad",
    inputs=[In("Param"), In("Grad"), In("Moment"),
            In("LearningRate", "a one-element tensor")],
    outputs=[Out("ParamOut", "the Param variable, updated in place"), Out("MomentOut")],
    attrs=[Attr("decay", "float", 0.95, "decay of the moment"),
           Attr("epsilon", "float", 1e-6, "keeps the division finite")],
    key_inputs=["Grad"],
    dtype_from="Param",
    doc=__doc__,
)
decayed_adagrad.infer_shape(lambda ctx: infer_optimizer(ctx, state=("Moment",)))


@decayed_adagrad.kernel(dtypes=FLOATS)
def decayed_adagrad_dense(attrs, param, grad, moment, learning_rate):
    decay = attrs["decay"]
    moment *= decay
    moment += (1 - decay) * grad * grad
    param -= scalar(learning_rate, param.dtype) * grad / (np.sqrt(moment) + attrs["epsilon"])
    return param, moment

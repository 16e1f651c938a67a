"""proximal_adagrad: an Adagrad step, then proximal_gd's proximal operator (Paddle's).

    Moment += Grad^2
    prox    = Param - lr * Grad / sqrt(Moment)
    Param   = sign(prox) * max(|prox| - lr * l1, 0) / (1 + lr * l2)    if l1 > 0
    Param   = prox / (1 + lr * l2)                                     otherwise

As in Paddle there is no epsilon: an element whose Moment is still 0 and whose
Grad is 0 becomes NaN (0/0); start Moment above 0 (Fluid's initial accumulator
value) to avoid it. Paddle has a dense kernel only.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.optimizers.optimizer_common import infer_optimizer, scalar
from paddle_ir.ops.optimizers.proximal_gd import PROXIMAL_ATTRS, proximal
from paddle_ir.ops.registry import FLOATS, In, Out, register_op

proximal_adagrad = register_op(
    "proximal_adagrad",
    inputs=[In("Param"), In("Moment"), In("Grad"), In("LearningRate", "a one-element tensor")],
    outputs=[Out("ParamOut", "the Param variable, updated in place"),
             Out("MomentOut", "the Moment variable, updated in place")],
    attrs=PROXIMAL_ATTRS,
    key_inputs=["Grad"],
    dtype_from="Param",
    doc=__doc__,
)
proximal_adagrad.infer_shape(lambda ctx: infer_optimizer(ctx, state=("Moment",)))


@proximal_adagrad.kernel(dtypes=FLOATS)
def proximal_adagrad_dense(attrs, param, moment, grad, learning_rate):
    lr = scalar(learning_rate, param.dtype)
    moment += grad * grad
    with np.errstate(invalid="ignore", divide="ignore"):  # Paddle's 0/0 (see above)
        param[...] = proximal(attrs, param - lr * grad / np.sqrt(moment), lr)
    return param, moment

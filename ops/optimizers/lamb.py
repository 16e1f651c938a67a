"""lamb: Layer-wise Adaptive Moments for Batch training (You et al.), Paddle's kernel, in place.

With t the step being taken and Beta1Pow = beta1^t, Beta2Pow = beta2^t on entry:

    Moment1 = beta1 * Moment1 + (1 - beta1) * Grad
    Moment2 = beta2 * Moment2 + (1 - beta2) * Grad^2
    r       = (Moment1 / (1 - beta1^t)) / (sqrt(Moment2 / (1 - beta2^t)) + epsilon)
              + weight_decay * Param
    ratio   = ||Param|| / ||r||  when both norms are > 0, else 1   (whole tensor)
    Param  -= lr * ratio * r
    Beta1PowOut = Beta1Pow * beta1;  Beta2PowOut = Beta2Pow * beta2

Beta1PowOut/Beta2PowOut are dispensable, as in Paddle: a Paddle 1.8 program
advances the powers with its own `scale` ops and names no such output.

A SelectedRows Grad is the dense update on its densified value (rows absent
get a zero gradient and their moments still decay), as in Paddle: the layer-wise
norms read the whole parameter anyway, so there is no lazy mode.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.optimizers.optimizer_common import infer_optimizer, merged, scalar
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

lamb = register_op(
    "lamb",
    inputs=[In("Param"), In("Grad", "dense or SelectedRows"),
            In("LearningRate", "a one-element tensor"), In("Moment1"), In("Moment2"),
            In("Beta1Pow", "beta1^t, one element"), In("Beta2Pow", "beta2^t, one element")],
    outputs=[Out("ParamOut", "the Param variable, updated in place"),
             Out("Moment1Out"), Out("Moment2Out"),
             Out("Beta1PowOut", "the Beta1Pow variable, advanced", dispensable=True),
             Out("Beta2PowOut", "the Beta2Pow variable, advanced", dispensable=True)],
    attrs=[Attr("weight_decay", "float", 0.01, "lambda, the decoupled weight decay rate"),
           Attr("beta1", "float", 0.9, "decay of the first moment"),
           Attr("beta2", "float", 0.999, "decay of the second moment"),
           Attr("epsilon", "float", 1e-6, "added to sqrt(v_hat)")],
    key_inputs=["Grad"],
    dtype_from="Param",
    doc=__doc__,
)
lamb.infer_shape(lambda ctx: infer_optimizer(
    ctx, state=("Moment1", "Moment2"), scalars=("Beta1Pow", "Beta2Pow"),
    optional=("Beta1Pow", "Beta2Pow")))


def _lamb(attrs, param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow):
    dtype = param.dtype.type
    b1, b2 = dtype(attrs["beta1"]), dtype(attrs["beta2"])
    b1p, b2p = scalar(beta1_pow, param.dtype), scalar(beta2_pow, param.dtype)
    moment1 *= b1
    moment1 += (dtype(1) - b1) * grad
    moment2 *= b2
    moment2 += (dtype(1) - b2) * grad * grad
    r = (moment1 / (dtype(1) - b1p)) / (np.sqrt(moment2 / (dtype(1) - b2p))
                                        + dtype(attrs["epsilon"]))
    r += dtype(attrs["weight_decay"]) * param
    p_norm, r_norm = np.sqrt(np.sum(param * param)), np.sqrt(np.sum(r * r))
    lr = scalar(learning_rate, param.dtype)
    if p_norm > 0 and r_norm > 0:
        lr = lr * (p_norm / r_norm)
    param -= lr * r
    # New arrays, not in place: with no Beta*PowOut the powers must stay as they are.
    return (param, moment1, moment2, beta1_pow * dtype(attrs["beta1"]),
            beta2_pow * dtype(attrs["beta2"]))


lamb.kernel(dtypes=FLOATS)(_lamb)


@lamb.kernel(storage=["selected_rows"], dtypes=FLOATS)
def lamb_selected_rows(attrs, param, grad, learning_rate, moment1, moment2, beta1_pow,
                       beta2_pow):
    rows, values = merged(grad)
    dense = np.zeros_like(param)  # the layer-wise norms need every row (see above)
    dense[rows] = values
    return _lamb(attrs, param, dense, learning_rate, moment1, moment2, beta1_pow, beta2_pow)

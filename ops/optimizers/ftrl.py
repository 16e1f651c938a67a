"""ftrl: Follow The Regularized Leader (McMahan et al.), Paddle's kernel, in place.

With n = SquaredAccumulator, z = LinearAccumulator, p = lr_power, and l1, l2 each
plus 1e-10 as Paddle adds them:

    n_new = n + Grad^2
    z    += Grad - (n_new^(-p) - n^(-p)) / lr * Param
    Param = (l1 * sign(z) - z) / (n_new^(-p) / lr + 2 * l2)   where |z| > l1, else 0
    n     = n_new

(p = -0.5 is the usual square root). A SelectedRows Grad (merged first:
duplicate rows add up) updates only the rows it lists, in Param and both
accumulators, as Paddle's sparse kernel does; rows it does not list keep their
values (the dense kernel would set a row whose |z| <= l1 to 0 even with a zero
gradient, so the two differ there, as in Paddle).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.optimizers.optimizer_common import infer_optimizer, merged, scalar
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_OUTS = {"SquaredAccumulator": "SquaredAccumOut", "LinearAccumulator": "LinearAccumOut"}

ftrl = register_op(
    "ftrl",
    inputs=[In("Param"), In("SquaredAccumulator", "the sum of squared gradients"),
            In("LinearAccumulator", "FTRL's z"), In("Grad", "dense or SelectedRows"),
            In("LearningRate", "a one-element tensor")],
    outputs=[Out("ParamOut", "the Param variable, updated in place"),
             Out("SquaredAccumOut", "the SquaredAccumulator variable, updated in place"),
             Out("LinearAccumOut", "the LinearAccumulator variable, updated in place")],
    attrs=[Attr("l1", "float", 0.0, "L1 regularization strength"),
           Attr("l2", "float", 0.0, "L2 regularization strength"),
           Attr("lr_power", "float", -0.5, "the power of the learning-rate schedule")],
    key_inputs=["Grad"],
    dtype_from="Param",
    doc=__doc__,
)
ftrl.infer_shape(lambda ctx: infer_optimizer(
    ctx, state=("SquaredAccumulator", "LinearAccumulator"), out_slots=_OUTS))


def _rooted(values: np.ndarray, lr_power: float) -> np.ndarray:
    return np.sqrt(values) if lr_power == -0.5 else np.power(values, -lr_power)


def _update(attrs, param, grad, squared, linear, lr):
    """New (param, squared, linear) of the rows given; Paddle's order of operations."""
    dtype = param.dtype.type
    l1, l2 = dtype(attrs["l1"]) + dtype(1e-10), dtype(attrs["l2"]) + dtype(1e-10)
    power = float(np.float32(attrs["lr_power"]))
    new_squared = squared + grad * grad
    linear = linear + grad - (_rooted(new_squared, power) - _rooted(squared, power)) / lr * param
    y = _rooted(new_squared, power) / lr + dtype(2) * l2
    shrunk = (l1 * np.sign(linear) - linear) / y
    return np.where(np.abs(linear) > l1, shrunk, dtype(0)).astype(param.dtype), new_squared, linear


@ftrl.kernel(dtypes=FLOATS)
def ftrl_dense(attrs, param, squared, linear, grad, learning_rate):
    lr = scalar(learning_rate, param.dtype)
    param[...], squared[...], linear[...] = _update(attrs, param, grad, squared, linear, lr)
    return param, squared, linear


@ftrl.kernel(storage=["selected_rows"], dtypes=FLOATS)
def ftrl_selected_rows(attrs, param, squared, linear, grad, learning_rate):
    rows, values = merged(grad)
    lr = scalar(learning_rate, param.dtype)
    param[rows], squared[rows], linear[rows] = _update(
        attrs, param[rows], values, squared[rows], linear[rows], lr)
    return param, squared, linear

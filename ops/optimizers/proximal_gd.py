"""proximal_gd: a gradient step, then the proximal operator of l1 |x| + l2/2 x^2 (Paddle's).

    prox   = Param - lr * Grad
    Param  = sign(prox) * max(|prox| - lr * l1, 0) / (1 + lr * l2)     if l1 > 0
    Param  = prox / (1 + lr * l2)                                      otherwise

Paddle has a dense kernel only; a SelectedRows Grad is refused with the kernels
that exist (its meaning would be the dense update, which moves every row).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.optimizers.optimizer_common import infer_optimizer, scalar
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

PROXIMAL_ATTRS = [Attr("l1", "float", 0.0, "L1 regularization strength"),
                  Attr("l2", "float", 0.0, "L2 regularization strength")]

proximal_gd = register_op(
    "proximal_gd",
    inputs=[In("Param"), In("Grad"), In("LearningRate", "a one-element tensor")],
    outputs=[Out("ParamOut", "the Param variable, updated in place")],
    attrs=PROXIMAL_ATTRS,
    key_inputs=["Grad"],
    dtype_from="Param",
    doc=__doc__,
)
proximal_gd.infer_shape(lambda ctx: infer_optimizer(ctx))


def proximal(attrs, prox: np.ndarray, lr) -> np.ndarray:
    """The proximal step both proximal ops share, on `prox` (a new array, overwritten)."""
    dtype = prox.dtype.type
    l1, l2 = dtype(attrs["l1"]), dtype(attrs["l2"])
    if l1 > 0:
        shrunk = np.maximum(np.abs(prox) - lr * l1, dtype(0))
        prox = np.sign(prox) * shrunk
    prox /= dtype(1) + lr * l2
    return prox


@proximal_gd.kernel(dtypes=FLOATS)
def proximal_gd_dense(attrs, param, grad, learning_rate):
    lr = scalar(learning_rate, param.dtype)
    param[...] = proximal(attrs, param - lr * grad, lr)
    return param

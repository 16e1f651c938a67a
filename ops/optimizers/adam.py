"""adam: standard Adam (Kingma & Ba), in place (every `XOut` is its `X`).

With t the step being taken, Beta1Pow = beta1^t and Beta2Pow = beta2^t on
entry (the optimizer initializes them to beta1 and beta2):

    Moment1 = beta1 * Moment1 + (1 - beta1) * Grad
    Moment2 = beta2 * Moment2 + (1 - beta2) * Grad^2
    Param  -= lr * m_hat / (sqrt(v_hat) + epsilon),
              m_hat = Moment1 / (1 - beta1^t),  v_hat = Moment2 / (1 - beta2^t)
    Beta1Pow *= beta1;  Beta2Pow *= beta2           (ready for step t + 1)

computed as lr_t * Moment1 / (sqrt(Moment2) + epsilon * sqrt(1 - beta2^t)) with
lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t), the same quantity.

A SelectedRows Grad (merged first: duplicate rows add up):
- lazy_mode=False: exactly the dense update. The moments of rows without
  gradient still decay and those Param rows still move: O(V * D) work on
  Param and the moments, but no dense gradient is built.
- lazy_mode=True: only the listed rows change, in Param, Moment1 and Moment2
  (MXNet's lazy_update); other rows keep their values bit for bit. The beta
  powers advance in both modes.

Beta1Tensor and Beta2Tensor (one-element tensors) give beta1 and beta2 at run time
instead of the attributes, EpsilonTensor epsilon (ops/tensor_attrs.py).

For users comparing with Paddle 3.x on CPU: its sparse kernel corrects with
beta^(t+1) (it advances the powers before reading them), and its non-lazy
mode uses plain epsilon for absent rows; this op does neither.
"""

from __future__ import annotations

import math

import numpy as np

from paddle_ir.ops.optimizers.optimizer_common import LAZY_MODE, infer_optimizer, merged, scalar
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.tensor_attrs import TensorAttr, tensor_attr_inputs, with_tensor_attrs

# The inputs that override attributes at run time.
TENSOR_ATTRS = (TensorAttr("beta1", "float", whole="Beta1Tensor"),
                TensorAttr("beta2", "float", whole="Beta2Tensor"),
                TensorAttr("epsilon", "float", whole="EpsilonTensor"))

adam = register_op(
    "adam",
    inputs=[In("Param"), In("Grad", "dense or SelectedRows"),
            In("LearningRate", "a one-element tensor"), In("Moment1"), In("Moment2"),
            In("Beta1Pow", "beta1^t, one element"), In("Beta2Pow", "beta2^t, one element")]
    + tensor_attr_inputs(TENSOR_ATTRS),
    outputs=[Out("ParamOut", "the Param variable, updated in place"),
             Out("Moment1Out"), Out("Moment2Out"), Out("Beta1PowOut"), Out("Beta2PowOut")],
    attrs=[Attr("beta1", "float", 0.9, "decay of the first moment"),
           Attr("beta2", "float", 0.999, "decay of the second moment"),
           Attr("epsilon", "float", 1e-8, "added to sqrt(v_hat)"),
           LAZY_MODE],
    key_inputs=["Grad"],
    dtype_from="Param",
    doc=__doc__,
)
adam.infer_shape(lambda ctx: infer_optimizer(ctx, state=("Moment1", "Moment2"),
                                             scalars=("Beta1Pow", "Beta2Pow")))


def _rates(attrs, param, learning_rate, beta1_pow, beta2_pow):
    """(lr_t, eps_t) of the current step, read before the powers advance."""
    b1p, b2p = float(beta1_pow.reshape(-1)[0]), float(beta2_pow.reshape(-1)[0])
    lr = float(scalar(learning_rate, param.dtype))
    correction = math.sqrt(1.0 - b2p)
    dtype = param.dtype.type
    return dtype(lr * correction / (1.0 - b1p)), dtype(attrs["epsilon"] * correction)


def _advance(attrs, beta1_pow, beta2_pow):
    beta1_pow *= attrs["beta1"]
    beta2_pow *= attrs["beta2"]


def adam_dense(attrs, param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow):
    b1, b2 = attrs["beta1"], attrs["beta2"]
    lr_t, eps_t = _rates(attrs, param, learning_rate, beta1_pow, beta2_pow)
    moment1 *= b1
    moment1 += (1 - b1) * grad
    moment2 *= b2
    moment2 += (1 - b2) * np.square(grad)
    param -= lr_t * moment1 / (np.sqrt(moment2) + eps_t)
    _advance(attrs, beta1_pow, beta2_pow)
    return param, moment1, moment2, beta1_pow, beta2_pow


def adam_selected_rows(attrs, param, grad, learning_rate, moment1, moment2, beta1_pow,
                       beta2_pow):
    b1, b2 = attrs["beta1"], attrs["beta2"]
    lr_t, eps_t = _rates(attrs, param, learning_rate, beta1_pow, beta2_pow)
    rows, values = merged(grad)  # new arrays, reused below as scratch
    if attrs["lazy_mode"]:
        # The dense formulas on the gathered rows, in the same order of operations, with
        # in-place steps: five [rows, D] arrays in all, and take / put for the rows.
        m1 = moment1.take(rows, axis=0)
        m1 *= b1
        scratch = np.multiply(values, 1 - b1)
        m1 += scratch
        np.square(values, out=values)
        values *= 1 - b2
        m2 = moment2.take(rows, axis=0)
        m2 *= b2
        m2 += values
        moment1[rows], moment2[rows] = m1, m2
        denominator = np.sqrt(m2, out=values)
        denominator += eps_t
        step = np.multiply(m1, lr_t, out=scratch)
        step /= denominator
        updated = param.take(rows, axis=0)
        updated -= step
        param[rows] = updated
    else:
        moment1 *= b1
        moment1[rows] += (1 - b1) * values
        moment2 *= b2
        moment2[rows] += (1 - b2) * np.square(values)
        param -= lr_t * moment1 / (np.sqrt(moment2) + eps_t)
    _advance(attrs, beta1_pow, beta2_pow)
    return param, moment1, moment2, beta1_pow, beta2_pow


adam.kernel(dtypes=FLOATS)(with_tensor_attrs("adam", TENSOR_ATTRS, 7, adam_dense))
adam.kernel(storage=["selected_rows"], dtypes=FLOATS)(
    with_tensor_attrs("adam", TENSOR_ATTRS, 7, adam_selected_rows))

"""lstm_unit (+ _grad): one LSTM step from projected gates (Paddle's lstm_unit op).

X [N, 4D] holds the pre-activations in Paddle's order i, f, o, g; C_prev [N, D]:

    i = sigmoid(X_i), f = sigmoid(X_f + forget_bias), o = sigmoid(X_o), g = tanh(X_g)
    C = f * C_prev + i * g
    H = o * tanh(C)

Gradients (dC_total = dC + dH * o * (1 - tanh(C)^2)):
    dX_i = dC_total * g * i (1 - i), dX_f = dC_total * C_prev * f (1 - f),
    dX_o = dH * tanh(C) * o (1 - o), dX_g = dC_total * i (1 - g^2), dC_prev = dC_total * f
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.rnn.rnn_batch import ACTIVATIONS

_sigmoid = ACTIVATIONS["sigmoid"][0]
_ATTRS = [Attr("forget_bias", "float", 0.0, "added to the forget gate's pre-activation")]

lstm_unit = register_op(
    "lstm_unit",
    inputs=[In("X", "[N, 4D] pre-activations i, f, o, g"), In("C_prev", "[N, D]")],
    outputs=[Out("C", "[N, D] the new cell"), Out("H", "[N, D] the new hidden state")],
    attrs=_ATTRS,
    doc=__doc__,
)


@lstm_unit.infer_shape
def _(ctx):
    x, c = ctx.input_shape("X"), ctx.input_shape("C_prev")
    ctx.enforce(len(x) == 2 and len(c) == 2,
                lambda: f"X and C_prev must be 2-D, got {shape_str(x)} and {shape_str(c)}")
    ctx.enforce(dims_match(x[0], c[0]) and dims_match(x[1], 4 * c[1] if c[1] >= 0 else -1),
                lambda: f"X must be [N, 4D] for C_prev [N, D], got X {shape_str(x)} and C_prev "
                f"{shape_str(c)}")
    for slot in ("C", "H"):
        ctx.set_output(slot, c, ctx.input_dtype("X"))


def _gates(x: np.ndarray, forget_bias: float):
    i, f, o, g = np.split(x, 4, axis=1)
    return _sigmoid(i), _sigmoid(f + np.asarray(forget_bias, x.dtype)), _sigmoid(o), np.tanh(g)


@lstm_unit.kernel(dtypes=FLOATS)
def lstm_unit_kernel(attrs, x, c_prev):
    i, f, o, g = _gates(x, attrs["forget_bias"])
    c = f * c_prev + i * g
    return c, o * np.tanh(c)


@lstm_unit.grad_maker
def _(g):
    return [g.grad_op("lstm_unit_grad",
                      inputs={"X": g.input("X"), "C_prev": g.input("C_prev"),
                              "C": g.output("C"), "H@GRAD": g.output_grad("H"),
                              "C@GRAD": g.output_grad("C")},
                      outputs={"X@GRAD": g.input_grad("X"),
                               "C_prev@GRAD": g.input_grad("C_prev")},
                      attrs={"forget_bias": g.attr("forget_bias")})]


lstm_unit_grad = register_op(
    "lstm_unit_grad",
    inputs=[In("X"), In("C_prev"), In("C"), In("H@GRAD", dispensable=True),
            In("C@GRAD", dispensable=True)],
    outputs=[Out("X@GRAD", dispensable=True), Out("C_prev@GRAD", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["X"],
    doc="The gradients of lstm_unit (see its formulas); absent output gradients are zeros.",
)


@lstm_unit_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.set_output("C_prev@GRAD", ctx.input_shape("C_prev"), ctx.input_dtype("C_prev"))


@lstm_unit_grad.kernel(dtypes=FLOATS)
def lstm_unit_grad_kernel(attrs, x, c_prev, c, dh, dc):
    i, f, o, g = _gates(x, attrs["forget_bias"])
    dh = np.zeros_like(c) if dh is None else dh
    tanh_c = np.tanh(c)
    dc_total = dh * o * (1 - tanh_c * tanh_c)
    if dc is not None:
        dc_total = dc_total + dc
    dx = np.concatenate([dc_total * g * i * (1 - i), dc_total * c_prev * f * (1 - f),
                         dh * tanh_c * o * (1 - o), dc_total * i * (1 - g * g)], axis=1)
    return dx, dc_total * f

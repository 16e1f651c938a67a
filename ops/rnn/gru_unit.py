"""gru_unit (+ _grad): one GRU step for a batch of rows (Paddle's gru_unit op).

Input [N, 3D] holds the projected inputs (update, reset, candidate), HiddenPrev
[N, D] the previous state. Weight [D, 3D] is split by flat memory, as in the
`gru` op: the first 2*D*D values reshaped to [D, 2D] are W_g (update and
reset), the remaining D*D reshaped to [D, D] W_c. Bias [1, 3D] (zeros when absent).

    [g_u, g_r] = Input[:, :2D] + HiddenPrev @ W_g + Bias[:2D]
    u = gate_act(g_u), r = gate_act(g_r)
    ResetHiddenPrev = r * HiddenPrev
    c = act(Input[:, 2D:] + ResetHiddenPrev @ W_c + Bias[2D:])
    Gate = [u, r, c]
    Hidden = (1 - u) * HiddenPrev + u * c     (origin_mode=False)
    Hidden = u * HiddenPrev + (1 - u) * c     (origin_mode=True)

The activations are attribute enums as in Paddle: 0 identity, 1 sigmoid,
2 tanh, 3 relu (activation defaults to tanh, gate_activation to sigmoid).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.grad import grad_name
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.rnn.rnn_batch import ACTIVATIONS

ACTIVATION_IDS = ("identity", "sigmoid", "tanh", "relu")

_ATTRS = [
    Attr("activation", "int", 2, "the candidate's activation: 0 identity, 1 sigmoid, 2 tanh, "
                                 "3 relu"),
    Attr("gate_activation", "int", 1, "the gates' activation (same enum)"),
    Attr("origin_mode", "bool", False, "h = u*h_prev + (1-u)*c instead of (1-u)*h_prev + u*c"),
]

gru_unit = register_op(
    "gru_unit",
    inputs=[In("Input", "[N, 3D] projected inputs (update, reset, candidate)"),
            In("HiddenPrev", "[N, D]"),
            In("Weight", "[D, 3D]: gate weights [D, 2D] then candidate weights [D, D], flat"),
            In("Bias", "[1, 3D]", dispensable=True)],
    outputs=[Out("Gate", "[N, 3D]: u, r, c after activation"),
             Out("ResetHiddenPrev", "[N, D]: r * HiddenPrev"),
             Out("Hidden", "[N, D]")],
    attrs=_ATTRS,
    doc=__doc__,
)


def _check(ctx) -> tuple[int, int]:
    for attr in ("activation", "gate_activation"):
        value = ctx.attr(attr)
        ctx.enforce(0 <= value < len(ACTIVATION_IDS), lambda:
                    f"{attr} must be 0 (identity), 1 (sigmoid), 2 (tanh) or 3 (relu), got {value}")
    x, h, w = (ctx.input_shape(s) for s in ("Input", "HiddenPrev", "Weight"))
    ctx.enforce(len(x) == 2 and len(h) == 2 and len(w) == 2, lambda:
                f"Input, HiddenPrev and Weight must be 2-D, got {shape_str(x)}, {shape_str(h)} "
                f"and {shape_str(w)}")
    d = h[1]
    wide = 3 * d if d >= 0 else -1
    ctx.enforce(dims_match(x[1], wide),
                lambda: f"The input_size must be 3 times of frame_size in gru_unit: Input "
                f"{shape_str(x)}, HiddenPrev {shape_str(h)}")
    ctx.enforce(dims_match(w[0], d) and dims_match(w[1], wide), lambda:
                f"The shape of Weight must be [frame_size, frame_size * 3] = [{d}, {wide}], got "
                f"{shape_str(w)}")
    if ctx.has_input("Bias"):
        b = ctx.input_shape("Bias")
        ctx.enforce(len(b) == 2 and dims_match(b[0], 1) and dims_match(b[1], wide),
                    lambda: f"The shape of Bias must be [1, frame_size * 3] = [1, {wide}], got "
                    f"{shape_str(b)}")
    return x[0], d


@gru_unit.infer_shape
def _(ctx):
    n, d = _check(ctx)
    dtype = ctx.input_dtype("Input")
    ctx.set_output("Gate", (n, 3 * d if d >= 0 else -1), dtype)
    ctx.set_output("ResetHiddenPrev", (n, d), dtype)
    ctx.set_output("Hidden", (n, d), dtype)


def split_weight(w: np.ndarray):
    d = w.shape[0]
    flat = w.reshape(-1)
    return flat[:2 * d * d].reshape(d, 2 * d), flat[2 * d * d:].reshape(d, d)


def _acts(attrs):
    return (ACTIVATIONS[ACTIVATION_IDS[attrs["activation"]]],
            ACTIVATIONS[ACTIVATION_IDS[attrs["gate_activation"]]])


@gru_unit.kernel(dtypes=FLOATS)
def gru_unit_kernel(attrs, x, h_prev, weight, bias):
    (act, _), (gate_act, _) = _acts(attrs)
    d = h_prev.shape[1]
    w_g, w_c = split_weight(weight)
    g = x + bias if bias is not None else x.copy()
    g[:, :2 * d] = gate_act(g[:, :2 * d] + h_prev @ w_g)
    u, r = g[:, :d], g[:, d:2 * d]
    reset = r * h_prev
    g[:, 2 * d:] = act(g[:, 2 * d:] + reset @ w_c)
    c = g[:, 2 * d:]
    hidden = c + u * (h_prev - c) if attrs["origin_mode"] else h_prev + u * (c - h_prev)
    return g, reset, hidden


@gru_unit.grad_maker
def _(g):
    return [g.grad_op("gru_unit_grad",
                      inputs={"Input": g.input("Input"), "HiddenPrev": g.input("HiddenPrev"),
                              "Weight": g.input("Weight"), "Bias": g.input("Bias"),
                              "Gate": g.output("Gate"),
                              "ResetHiddenPrev": g.output("ResetHiddenPrev"),
                              "Hidden@GRAD": g.output_grad("Hidden")},
                      outputs={grad_name(s): g.input_grad(s)
                               for s in ("Input", "HiddenPrev", "Weight", "Bias")},
                      attrs={a.name: g.attr(a.name) for a in _ATTRS})]


gru_unit_grad = register_op(
    "gru_unit_grad",
    inputs=[In("Input", no_need_buffer=True), In("HiddenPrev"), In("Weight"),
            In("Bias", dispensable=True, no_need_buffer=True), In("Gate"),
            In("ResetHiddenPrev"), In("Hidden@GRAD")],
    outputs=[Out(grad_name(s), dispensable=True)
             for s in ("Input", "HiddenPrev", "Weight", "Bias")],
    attrs=_ATTRS,
    key_inputs=["Hidden@GRAD"],
    doc="The gradients of gru_unit, from its saved gates (one step of gru_grad).",
)


@gru_unit_grad.infer_shape
def _(ctx):
    for slot in ("Input", "HiddenPrev", "Weight", "Bias"):
        if ctx.has_input(slot):
            ctx.set_output(grad_name(slot), ctx.input_shape(slot), ctx.input_dtype(slot))


@gru_unit_grad.kernel(dtypes=FLOATS)
def gru_unit_grad_kernel(attrs, x, h_prev, weight, bias, gate, reset, dh):
    (_, act_d), (_, gate_d) = _acts(attrs)
    d = h_prev.shape[1]
    w_g, w_c = split_weight(weight)
    u, r, c = gate[:, :d], gate[:, d:2 * d], gate[:, 2 * d:]
    if attrs["origin_mode"]:
        du, dc, dh_prev = dh * (h_prev - c), dh * (1 - u), dh * u
    else:
        du, dc, dh_prev = dh * (c - h_prev), dh * u, dh * (1 - u)
    dg = np.empty_like(gate)
    dg[:, 2 * d:] = dc * act_d(c)
    d_reset = dg[:, 2 * d:] @ w_c.T
    dg[:, :d] = du * gate_d(u)
    dg[:, d:2 * d] = d_reset * h_prev * gate_d(r)
    dh_prev = dh_prev + d_reset * r + dg[:, :2 * d] @ w_g.T
    d_weight = np.concatenate([(h_prev.T @ dg[:, :2 * d]).reshape(-1),
                               (reset.T @ dg[:, 2 * d:]).reshape(-1)]).reshape(weight.shape)
    d_bias = dg.sum(axis=0, keepdims=True)
    return dg, dh_prev, d_weight, d_bias

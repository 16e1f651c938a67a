"""gru (+ gru_grad): Paddle's fused GRU over LoD sequences, the op behind dynamic_gru.

Input is already projected: x_t, a row of [T, 3D], holds the pre-activations
in Paddle's order update, reset, candidate. Weight [D, 3D] is split by flat
memory, as Paddle stores it: its first 2*D*D values reshaped to [D, 2D] are
the gate weights W_g, the remaining D*D reshaped to [D, D] the candidate
weights W_c. With b = Bias (zeros when absent), per step:

    [g_u, g_r] = x_t[:, :2D] + h_{t-1} @ W_g + b[:2D]
    u = gate_act(g_u), r = gate_act(g_r)
    c = act(x_t[:, 2D:] + (r * h_{t-1}) @ W_c + b[2D:])   (reset before the matmul)
    h = (1 - u) * h_{t-1} + u * c      (origin_mode=False, Paddle's default)
    h = u * h_{t-1} + (1 - u) * c      (origin_mode=True, the paper's form)

Each sequence of the last LoD level starts from its row of H0 (zeros when
absent; rows in the original sequence order). `is_reverse` runs every
sequence from its last row to its first, writing each output at the row it
read. Hidden carries Input's LoD.

The sequences are stepped together in Paddle's sorted batch (ops.rnn_batch).
The intermediate outputs BatchGate (u, r, c after activation),
BatchResetHiddenPrev (r * h_{t-1}) and BatchHidden (h) are kept in that batch
order, without LoD, for gru_grad.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.grad import grad_name
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.rnn.rnn_batch import (
    ACTIVATIONS,
    SeqBatch,
    check_activations,
    check_state,
    projected_width,
    require_sequence_input,
    sequence_offsets,
)

_ATTRS = [
    Attr("activation", "string", "tanh", "activation of the candidate"),
    Attr("gate_activation", "string", "sigmoid", "activation of the update and reset gates"),
    Attr("is_reverse", "bool", False, "run each sequence from its last row to its first"),
    Attr("origin_mode", "bool", False, "h = u*h_prev + (1-u)*c instead of (1-u)*h_prev + u*c"),
]

gru = register_op(
    "gru",
    inputs=[
        In("Input", "[T, 3D] projected inputs (update, reset, candidate), LoD >= 1"),
        In("H0", "[N, D] initial hidden state per sequence", dispensable=True),
        In("Weight", "[D, 3D]: gate weights [D, 2D] then candidate weights [D, D], flat"),
        In("Bias", "[1, 3D]", dispensable=True),
    ],
    outputs=[
        Out("BatchGate", "intermediate: [T, 3D] u, r, c after activation, sorted batch order"),
        Out("BatchResetHiddenPrev", "intermediate: [T, D] r * h_prev, sorted batch order"),
        Out("BatchHidden", "intermediate: [T, D] hidden states, sorted batch order"),
        Out("Hidden", "[T, D] hidden states, with Input's LoD"),
    ],
    attrs=_ATTRS,
    doc=__doc__,
)


@gru.infer_shape
def _(ctx):
    require_sequence_input(ctx, "gru", "dynamic_gru")
    check_activations(ctx, ("activation", "gate_activation"))
    d = projected_width(ctx, 3)
    wide = 3 * d if d >= 0 else -1
    if ctx.has_input("Bias"):
        bias = ctx.input_shape("Bias")
        ctx.enforce(len(bias) == 2 and dims_match(bias[0], 1) and dims_match(bias[1], wide),
                    lambda: f"Bias must be [1, {wide}] (3D), got {shape_str(bias)}")
    check_state(ctx, "H0", d)
    t, dtype = ctx.input_shape("Input")[0], ctx.input_dtype("Input")
    for slot, cols in (("BatchGate", wide), ("BatchResetHiddenPrev", d), ("BatchHidden", d),
                       ("Hidden", d)):
        ctx.set_output(slot, (t, cols), dtype)
    ctx.share_lod("Input", "Hidden")


def _split_weight(w: np.ndarray):
    """(W_g [D, 2D], W_c [D, D]) by flat memory, as Paddle lays the [D, 3D] Weight out."""
    d = w.shape[0]
    flat = w.reshape(-1)
    return flat[:2 * d * d].reshape(d, 2 * d), flat[2 * d * d:].reshape(d, d)


@gru.kernel(dtypes=FLOATS, lod=True)
def gru_dense(attrs, x, h0, weight, bias):
    batch = SeqBatch.from_offsets(sequence_offsets(x), attrs["is_reverse"])
    w = weight.numpy()
    d = w.shape[0]
    w_g, w_c = _split_weight(w)
    act = ACTIVATIONS[attrs["activation"]][0]
    gate_act = ACTIVATIONS[attrs["gate_activation"]][0]
    origin = attrs["origin_mode"]

    gates = x.numpy()[batch.rows]  # pre-activations now, activations after
    if bias is not None:
        gates += bias.numpy()
    rows = gates.shape[0]
    reset_b = np.empty((rows, d), dtype=gates.dtype)
    hidden_b = np.empty_like(reset_b)
    h_init = batch.initial_state(h0, d, gates.dtype, "H0")
    for t in range(batch.num_steps):
        lo, hi, n = batch.step(t)
        if t == 0:
            h_prev = h_init[:n]
        else:
            p = batch.prev_start(t)
            h_prev = hidden_b[p:p + n]
        g = gates[lo:hi]
        g[:, :2 * d] += h_prev @ w_g
        g[:, :2 * d] = gate_act(g[:, :2 * d])
        u, r, c = g[:, :d], g[:, d:2 * d], g[:, 2 * d:]
        reset_b[lo:hi] = r * h_prev
        c[:] = act(c + reset_b[lo:hi] @ w_c)
        hidden_b[lo:hi] = c + u * (h_prev - c) if origin else h_prev + u * (c - h_prev)
    return (LoDTensor.unchecked(gates), LoDTensor.unchecked(reset_b), LoDTensor.unchecked(hidden_b),
            LoDTensor.unchecked(batch.scatter(hidden_b), x.offsets))


@gru.grad_maker
def _(g):
    return [g.grad_op(
        "gru_grad",
        inputs={"Input": g.input("Input"), "H0": g.input("H0"), "Weight": g.input("Weight"),
                "Bias": g.input("Bias"), "BatchGate": g.output("BatchGate"),
                "BatchResetHiddenPrev": g.output("BatchResetHiddenPrev"),
                "BatchHidden": g.output("BatchHidden"),
                "Hidden@GRAD": g.output_grad("Hidden")},
        outputs={grad_name(slot): g.input_grad(slot)
                 for slot in ("Input", "H0", "Weight", "Bias")},
        attrs={a.name: g.attr(a.name) for a in _ATTRS})]


gru_grad = register_op(
    "gru_grad",
    inputs=[In("Input"), In("H0", dispensable=True), In("Weight"),
            In("Bias", dispensable=True), In("BatchGate"), In("BatchResetHiddenPrev"),
            In("BatchHidden"), In("Hidden@GRAD", "absent means zero", dispensable=True)],
    outputs=[Out(grad_name(slot), dispensable=True) for slot in ("Input", "H0", "Weight", "Bias")],
    attrs=_ATTRS,
    doc="Gradients of gru by backpropagation through time over the same sorted batch.",
)


@gru_grad.infer_shape
def _(ctx):
    for slot in ("Input", "H0", "Weight", "Bias"):
        if ctx.has_input(slot):
            ctx.set_output(grad_name(slot), ctx.input_shape(slot), ctx.input_dtype(slot))
    ctx.share_lod("Input", "Input@GRAD")


@gru_grad.kernel(dtypes=FLOATS, lod=True)
def gru_grad_dense(attrs, x, h0, weight, bias, batch_gate, batch_reset, batch_hidden, d_hidden):
    batch = SeqBatch.from_offsets(sequence_offsets(x), attrs["is_reverse"])
    w = weight.numpy()
    d = w.shape[0]
    w_g, w_c = _split_weight(w)
    act_d = ACTIVATIONS[attrs["activation"]][1]
    gate_d = ACTIVATIONS[attrs["gate_activation"]][1]
    origin = attrs["origin_mode"]

    gates, reset_b, hidden_b = batch_gate.numpy(), batch_reset.numpy(), batch_hidden.numpy()
    dtype = gates.dtype
    if d_hidden is None:
        dh_b = np.zeros_like(hidden_b)
    else:
        dh_b = d_hidden.numpy()[batch.rows]  # a fresh array: the loop accumulates into it
    d_gates = np.empty_like(gates)
    d_wg, d_wc = np.zeros_like(w_g), np.zeros_like(w_c)
    h_init = batch.initial_state(h0, d, dtype, "H0")
    dh_init = np.zeros_like(h_init)
    for t in reversed(range(batch.num_steps)):
        lo, hi, n = batch.step(t)
        if t == 0:
            p, h_prev, dh_to = 0, h_init[:n], dh_init
        else:
            p = batch.prev_start(t)
            h_prev, dh_to = hidden_b[p:p + n], dh_b
        u, r, c = gates[lo:hi, :d], gates[lo:hi, d:2 * d], gates[lo:hi, 2 * d:]
        dh = dh_b[lo:hi]
        if origin:  # h = u*h_prev + (1-u)*c
            du, dc, dh_prev = dh * (h_prev - c), dh * (1 - u), dh * u
        else:       # h = (1-u)*h_prev + u*c
            du, dc, dh_prev = dh * (c - h_prev), dh * u, dh * (1 - u)
        dg = d_gates[lo:hi]
        dg[:, 2 * d:] = dc * act_d(c)
        d_reset = dg[:, 2 * d:] @ w_c.T
        d_wc += reset_b[lo:hi].T @ dg[:, 2 * d:]
        dh_prev += d_reset * r
        dg[:, :d] = du * gate_d(u)
        dg[:, d:2 * d] = d_reset * h_prev * gate_d(r)
        d_wg += h_prev.T @ dg[:, :2 * d]
        dh_prev += dg[:, :2 * d] @ w_g.T
        dh_to[p:p + n] += dh_prev
    d_weight = np.concatenate([d_wg.reshape(-1), d_wc.reshape(-1)]).reshape(w.shape)
    return (LoDTensor.unchecked(batch.scatter(d_gates), x.offsets),
            LoDTensor.unchecked(batch.unsort_state(dh_init)),
            LoDTensor.unchecked(d_weight),
            LoDTensor.unchecked(d_gates.sum(axis=0, keepdims=True)))

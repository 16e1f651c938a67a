"""lstm (+ lstm_grad): Paddle's fused LSTM over LoD sequences, the op behind dynamic_lstm.

Input is already projected: x_t, a row of [T, 4D], holds the pre-activations
of the gates in Paddle's order candidate, input, forget, output. With
W = Weight [D, 4D] (used as h @ W) and b = Bias[:, :4D], per step:

    [g_c, g_i, g_f, g_o] = x_t + h_{t-1} @ W + b
    i = gate_act(g_i + w_ic * c_{t-1})          (peephole terms only with use_peepholes)
    f = gate_act(g_f + w_fc * c_{t-1})
    c = f * c_{t-1} + i * candidate_act(g_c)
    o = gate_act(g_o + w_oc * c)                (the output peephole reads the new cell)
    h = o * cell_act(c)

With use_peepholes Bias is [1, 7D] = (b_c, b_i, b_f, b_o, w_ic, w_fc, w_oc).
Each sequence of the last LoD level starts from its row of H0/C0 (zeros when
absent; rows in the original sequence order). `is_reverse` runs every
sequence from its last row to its first, writing each output at the row it
read. Hidden and Cell carry Input's LoD.

The sequences are stepped together in Paddle's sorted batch (ops.rnn_batch):
one matrix product per time step, no per-sequence loop. The intermediate
outputs BatchGate (the activated gates) and BatchCellPreAct (cell_act(c), the
name is Paddle's) are kept in that batch order, without LoD, for lstm_grad.
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

_ACT_ATTRS = ("gate_activation", "cell_activation", "candidate_activation")
_ATTRS = [
    Attr("use_peepholes", "bool", True, "add the peephole terms (Bias is then [1, 7D])"),
    Attr("is_reverse", "bool", False, "run each sequence from its last row to its first"),
    Attr("gate_activation", "string", "sigmoid", "activation of the input/forget/output gates"),
    Attr("cell_activation", "string", "tanh", "activation of the cell before the output gate"),
    Attr("candidate_activation", "string", "tanh", "activation of the candidate"),
]

lstm = register_op(
    "lstm",
    inputs=[
        In("Input", "[T, 4D] projected inputs (candidate, input, forget, output), LoD >= 1"),
        In("H0", "[N, D] initial hidden state per sequence", dispensable=True),
        In("C0", "[N, D] initial cell state per sequence", dispensable=True),
        In("Weight", "[D, 4D] recurrent weights, gates in the same order"),
        In("Bias", "[1, 4D], or [1, 7D] with peephole weights w_ic, w_fc, w_oc"),
    ],
    outputs=[
        Out("Hidden", "[T, D] hidden states, with Input's LoD"),
        Out("Cell", "[T, D] cell states, with Input's LoD"),
        Out("BatchGate", "intermediate: [T, 4D] activated gates, in sorted batch order"),
        Out("BatchCellPreAct", "intermediate: [T, D] cell_act(c), in sorted batch order"),
    ],
    attrs=_ATTRS,
    doc=__doc__,
)


@lstm.infer_shape
def _(ctx):
    require_sequence_input(ctx, "lstm", "dynamic_lstm")
    check_activations(ctx, _ACT_ATTRS)
    d = projected_width(ctx, 4)
    bias = ctx.input_shape("Bias")
    width = (7 if ctx.attr("use_peepholes") else 4) * d if d >= 0 else -1
    kind = "7D: biases, then peephole weights" if ctx.attr("use_peepholes") else "4D"
    ctx.enforce(len(bias) == 2 and dims_match(bias[0], 1) and dims_match(bias[1], width),
                lambda: f"Bias must be [1, {width}] ({kind}), got {shape_str(bias)}",
                hint="use_peepholes=True needs a [1, 7D] Bias, False a [1, 4D] one")
    check_state(ctx, "H0", d)
    check_state(ctx, "C0", d)
    t, dtype = ctx.input_shape("Input")[0], ctx.input_dtype("Input")
    for slot, cols in (("Hidden", d), ("Cell", d), ("BatchGate", 4 * d if d >= 0 else -1),
                       ("BatchCellPreAct", d)):
        ctx.set_output(slot, (t, cols), dtype)
    ctx.share_lod("Input", "Hidden")
    ctx.share_lod("Input", "Cell")


def _split(gates: np.ndarray, d: int):
    return gates[:, :d], gates[:, d:2 * d], gates[:, 2 * d:3 * d], gates[:, 3 * d:]


def gates_forward(g, c_prev, peep, activations, cell_clip: float = 0.0) -> np.ndarray:
    """One step of the LSTM forward through its gates (lstm and lstmp share it): g holds
    the step's pre-activations [n, 4D] (candidate, input, forget, output) and is
    overwritten with the activations; returns the new cell (clipped to +-cell_clip when
    that is > 0)."""
    gate_act, cand_act = activations
    g_c, g_i, g_f, g_o = _split(g, c_prev.shape[1])
    if peep is not None:
        g_i += peep[0] * c_prev
        g_f += peep[1] * c_prev
    g_c[:], g_i[:], g_f[:] = cand_act(g_c), gate_act(g_i), gate_act(g_f)
    c = g_f * c_prev + g_i * g_c
    if cell_clip > 0:
        c = np.clip(c, -cell_clip, cell_clip)
    if peep is not None:
        g_o += peep[2] * c
    g_o[:] = gate_act(g_o)
    return c


def gates_backward(gates, d_gates, c, c_prev, act_c, dh, dc_out, peep, d_peep, derivatives,
                   cell_clip: float = 0.0) -> np.ndarray:
    """One step of the LSTM backward through its gates (lstm and lstmp share it): fills
    d_gates [n, 4D] (candidate, input, forget, output) from dh and the cell gradient dc_out
    coming from later, adds the peephole gradients into d_peep, and returns the gradient of
    the previous cell. With cell_clip > 0, a clipped cell passes no gradient."""
    gate_d, cell_d, cand_d = derivatives
    d = c.shape[1]
    cand, i, f, o = _split(gates, d)
    dg_c, dg_i, dg_f, dg_o = _split(d_gates, d)
    dg_o[:] = dh * act_c * gate_d(o)
    dc = dc_out + dh * o * cell_d(act_c)
    if peep is not None:
        dc += dg_o * peep[2]
    if cell_clip > 0:
        dc = dc * ((c > -cell_clip) & (c < cell_clip))
    dg_i[:] = dc * cand * gate_d(i)
    dg_f[:] = dc * c_prev * gate_d(f)
    dg_c[:] = dc * i * cand_d(cand)
    dc_prev = dc * f
    if peep is not None:
        dc_prev += dg_i * peep[0] + dg_f * peep[1]
        d_peep[0] += (dg_i * c_prev).sum(axis=0)
        d_peep[1] += (dg_f * c_prev).sum(axis=0)
        d_peep[2] += (dg_o * c).sum(axis=0)
    return dc_prev


def _peepholes(attrs, bias: np.ndarray, d: int):
    if not attrs["use_peepholes"]:
        return None
    return bias[0, 4 * d:5 * d], bias[0, 5 * d:6 * d], bias[0, 6 * d:7 * d]


@lstm.kernel(dtypes=FLOATS, lod=True)
def lstm_dense(attrs, x, h0, c0, weight, bias):
    batch = SeqBatch.from_offsets(sequence_offsets(x), attrs["is_reverse"])
    w, b = weight.numpy(), bias.numpy()
    d = w.shape[0]
    gate_act = ACTIVATIONS[attrs["gate_activation"]][0]
    cell_act = ACTIVATIONS[attrs["cell_activation"]][0]
    cand_act = ACTIVATIONS[attrs["candidate_activation"]][0]
    peep = _peepholes(attrs, b, d)

    gates = x.numpy()[batch.rows] + b[:, :4 * d]  # pre-activations now, activations after
    rows = gates.shape[0]
    cell_b = np.empty((rows, d), dtype=gates.dtype)
    act_cell_b = np.empty_like(cell_b)
    hidden_b = np.empty_like(cell_b)
    h_init = batch.initial_state(h0, d, gates.dtype, "H0")
    c_init = batch.initial_state(c0, d, gates.dtype, "C0")
    for t in range(batch.num_steps):
        lo, hi, n = batch.step(t)
        if t == 0:
            h_prev, c_prev = h_init[:n], c_init[:n]
        else:
            p = batch.prev_start(t)
            h_prev, c_prev = hidden_b[p:p + n], cell_b[p:p + n]
        g = gates[lo:hi]
        g += h_prev @ w
        c = gates_forward(g, c_prev, peep, (gate_act, cand_act))
        cell_b[lo:hi] = c
        act_cell_b[lo:hi] = cell_act(c)
        hidden_b[lo:hi] = g[:, 3 * d:] * act_cell_b[lo:hi]
    return (LoDTensor.unchecked(batch.scatter(hidden_b), x.offsets),
            LoDTensor.unchecked(batch.scatter(cell_b), x.offsets),
            LoDTensor.unchecked(gates), LoDTensor.unchecked(act_cell_b))


@lstm.grad_maker
def _(g):
    return [g.grad_op(
        "lstm_grad",
        inputs={"Input": g.input("Input"), "H0": g.input("H0"), "C0": g.input("C0"),
                "Weight": g.input("Weight"), "Bias": g.input("Bias"),
                "Hidden": g.output("Hidden"), "Cell": g.output("Cell"),
                "BatchGate": g.output("BatchGate"),
                "BatchCellPreAct": g.output("BatchCellPreAct"),
                "Hidden@GRAD": g.output_grad("Hidden"), "Cell@GRAD": g.output_grad("Cell")},
        outputs={grad_name(slot): g.input_grad(slot)
                 for slot in ("Input", "H0", "C0", "Weight", "Bias")},
        attrs={a.name: g.attr(a.name) for a in _ATTRS})]


lstm_grad = register_op(
    "lstm_grad",
    inputs=[In("Input"), In("H0", dispensable=True), In("C0", dispensable=True), In("Weight"),
            In("Bias"), In("Hidden"), In("Cell"), In("BatchGate"), In("BatchCellPreAct"),
            In("Hidden@GRAD", "absent means zero", dispensable=True),
            In("Cell@GRAD", "absent means zero", dispensable=True)],
    outputs=[Out(grad_name(slot), dispensable=True)
             for slot in ("Input", "H0", "C0", "Weight", "Bias")],
    attrs=_ATTRS,
    doc="Gradients of lstm by backpropagation through time over the same sorted batch.",
)


@lstm_grad.infer_shape
def infer_grad_shapes(ctx):
    for slot in ("Input", "H0", "C0", "Weight", "Bias"):
        if ctx.has_input(slot):
            ctx.set_output(grad_name(slot), ctx.input_shape(slot), ctx.input_dtype(slot))
    ctx.share_lod("Input", "Input@GRAD")


def _batch_grad(grad, batch: SeqBatch, shape, dtype) -> np.ndarray:
    """An output gradient in batch order (a fresh array: the loop accumulates into it)."""
    if grad is None:
        return np.zeros(shape, dtype=dtype)
    return np.asarray(grad)[batch.rows]


@lstm_grad.kernel(dtypes=FLOATS, lod=True)
def lstm_grad_dense(attrs, x, h0, c0, weight, bias, hidden, cell, batch_gate, batch_act_cell,
                    d_hidden, d_cell):
    batch = SeqBatch.from_offsets(sequence_offsets(x), attrs["is_reverse"])
    w, b = weight.numpy(), bias.numpy()
    d = w.shape[0]
    gate_d = ACTIVATIONS[attrs["gate_activation"]][1]
    cell_d = ACTIVATIONS[attrs["cell_activation"]][1]
    cand_d = ACTIVATIONS[attrs["candidate_activation"]][1]
    peep = _peepholes(attrs, b, d)

    gates, act_cell_b = batch_gate.numpy(), batch_act_cell.numpy()
    hidden_b, cell_b = hidden.numpy()[batch.rows], cell.numpy()[batch.rows]
    dtype = gates.dtype
    dh_b = _batch_grad(d_hidden, batch, hidden_b.shape, dtype)
    dc_b = _batch_grad(d_cell, batch, cell_b.shape, dtype)
    d_gates = np.empty_like(gates)
    d_w = np.zeros_like(w)
    d_peep = np.zeros((3, d), dtype=dtype)
    h_init = batch.initial_state(h0, d, dtype, "H0")
    c_init = batch.initial_state(c0, d, dtype, "C0")
    dh_init, dc_init = np.zeros_like(h_init), np.zeros_like(c_init)
    for t in reversed(range(batch.num_steps)):
        lo, hi, n = batch.step(t)
        if t == 0:
            p, h_prev, c_prev, dh_to, dc_to = 0, h_init[:n], c_init[:n], dh_init, dc_init
        else:
            p = batch.prev_start(t)
            h_prev, c_prev, dh_to, dc_to = hidden_b[p:p + n], cell_b[p:p + n], dh_b, dc_b
        dc_prev = gates_backward(gates[lo:hi], d_gates[lo:hi], cell_b[lo:hi], c_prev,
                                 act_cell_b[lo:hi], dh_b[lo:hi], dc_b[lo:hi], peep, d_peep,
                                 (gate_d, cell_d, cand_d))
        dg = d_gates[lo:hi]
        d_w += h_prev.T @ dg
        dh_to[p:p + n] += dg @ w.T
        dc_to[p:p + n] += dc_prev
    d_bias = d_gates.sum(axis=0)
    if peep is not None:
        d_bias = np.concatenate([d_bias, d_peep.reshape(-1)])
    return (LoDTensor.unchecked(batch.scatter(d_gates), x.offsets),
            LoDTensor.unchecked(batch.unsort_state(dh_init)),
            LoDTensor.unchecked(batch.unsort_state(dc_init)),
            LoDTensor.unchecked(d_w), LoDTensor.unchecked(d_bias.reshape(1, -1).astype(dtype)))

"""lstmp (+ lstmp_grad): Paddle's LSTM with a recurrent projection layer, over LoD sequences.

Like lstm (ops/rnn/lstm.py, same gate order candidate, input, forget, output and
the same Bias layout [1, 4D] or [1, 7D] with peepholes w_ic, w_fc, w_oc), except
that the recurrence reads the projection r, not the hidden state h. With
Weight [P, 4D] and ProjWeight [D, P], per step:

    [g_c, g_i, g_f, g_o] = x_t + r_{t-1} @ Weight + b
    i = gate_act(g_i + w_ic * c_{t-1}),  f = gate_act(g_f + w_fc * c_{t-1})
    c = clip(f * c_{t-1} + i * candidate_act(g_c), cell_clip)   (clip only when cell_clip > 0)
    o = gate_act(g_o + w_oc * c)
    h = o * cell_act(c)
    r = clip(proj_act(h @ ProjWeight), proj_clip)               (clip only when proj_clip > 0)

Paddle 1.8's kernel (lstmp_op.h) applies *cell_activation* to the projection
whenever proj_activation is not "identity" (and differentiates it likewise):
proj_activation only switches the projection's activation on or off. That is
kept here, since programs trained with Paddle depend on it; with the defaults
(both tanh) the two readings agree.

H0 is the initial projection r_0 [N, P], C0 the initial cell [N, D] (rows in
the original sequence order, zeros when absent); Paddle requires C0 whenever
H0 is given. `is_reverse` runs every sequence from its last row to its first.
Projection and Cell carry Input's LoD. The intermediates BatchGate (activated
gates), BatchCellPreAct (cell_act(c)) and BatchHidden (h) are in the sorted
batch order of ops.rnn_batch. As in Paddle, the gradient flows from Projection
only: the Cell output has no gradient input.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.grad import grad_name
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.rnn.lstm import gates_backward, gates_forward
from paddle_ir.ops.rnn.rnn_batch import (
    ACTIVATIONS,
    SeqBatch,
    check_activations,
    check_state,
    require_sequence_input,
    sequence_offsets,
)

_ACT_ATTRS = ("gate_activation", "cell_activation", "candidate_activation", "proj_activation")
_ATTRS = [
    Attr("use_peepholes", "bool", True, "add the peephole terms (Bias is then [1, 7D])"),
    Attr("is_reverse", "bool", False, "run each sequence from its last row to its first"),
    Attr("cell_clip", "float", 0.0, "clip the cell state to [-cell_clip, cell_clip] when > 0"),
    Attr("proj_clip", "float", 0.0, "clip the projection to [-proj_clip, proj_clip] when > 0"),
    Attr("gate_activation", "string", "sigmoid", "activation of the input/forget/output gates"),
    Attr("cell_activation", "string", "tanh", "activation of the cell before the output gate"),
    Attr("candidate_activation", "string", "tanh", "activation of the candidate"),
    Attr("proj_activation", "string", "tanh",
         "'identity' leaves the projection linear; anything else applies cell_activation "
         "(Paddle 1.8's kernel)"),
]
_GRAD_SLOTS = ("Input", "H0", "C0", "Weight", "ProjWeight", "Bias")

lstmp = register_op(
    "lstmp",
    inputs=[
        In("Input", "[T, 4D] projected inputs (candidate, input, forget, output), LoD >= 1"),
        In("H0", "[N, P] initial projection per sequence (needs C0)", dispensable=True),
        In("C0", "[N, D] initial cell state per sequence", dispensable=True),
        In("Weight", "[P, 4D] recurrent weights, read by the previous projection"),
        In("ProjWeight", "[D, P] projection weights"),
        In("Bias", "[1, 4D], or [1, 7D] with peephole weights w_ic, w_fc, w_oc"),
    ],
    outputs=[
        Out("Projection", "[T, P] projections r, with Input's LoD"),
        Out("Cell", "[T, D] cell states, with Input's LoD"),
        Out("BatchGate", "intermediate: [T, 4D] activated gates, in sorted batch order"),
        Out("BatchCellPreAct", "intermediate: [T, D] cell_act(c), in sorted batch order"),
        Out("BatchHidden", "intermediate: [T, D] hidden states h, in sorted batch order"),
    ],
    attrs=_ATTRS,
    doc=__doc__,
)


def _widths(ctx) -> tuple[int, int]:
    """(D, P) after checking Input [T, 4D], Weight [P, 4D] and ProjWeight [D, P] together."""
    x, w, pw = (ctx.input_shape(s) for s in ("Input", "Weight", "ProjWeight"))
    ctx.enforce(len(x) == 2, lambda: f"Input must be 2-D [T, 4D], got {shape_str(x)}")
    ctx.enforce(len(w) == 2, lambda: f"Weight must be 2-D [P, 4D], got {shape_str(w)}")
    ctx.enforce(len(pw) == 2, lambda: f"ProjWeight must be 2-D [D, P], got {shape_str(pw)}")
    # D and P from whichever dim is known, ProjWeight's first (a program may leave any -1).
    known_d = [v for v in (pw[0], w[1] // 4 if w[1] >= 0 else -1,
                           x[1] // 4 if x[1] >= 0 else -1) if v >= 0]
    d = known_d[0] if known_d else -1
    p = next((v for v in (pw[1], w[0]) if v >= 0), -1)
    wide = 4 * d if d >= 0 else -1
    ctx.enforce(dims_match(x[1], wide) and (x[1] < 0 or x[1] % 4 == 0),
                lambda: f"Input.shape[1] must be 4 * D = {wide} (D = ProjWeight.shape[0]), got "
                f"Input.shape={shape_str(x)}",
                hint="project the input to the gate width first (an fc of size 4 * D "
                     "without activation)")
    ctx.enforce(dims_match(w[0], p) and dims_match(w[1], wide),
                lambda: f"Weight must be [P, 4D] = [{p}, {wide}] (P = ProjWeight.shape[1]), got "
                f"{shape_str(w)}")
    ctx.enforce(dims_match(pw[0], d), lambda: f"ProjWeight must be [D, P] with D = {d}, got "
                f"{shape_str(pw)}")
    for slot in ("Weight", "ProjWeight", "Bias"):
        ctx.enforce(ctx.input_dtype(slot) == ctx.input_dtype("Input"),
                    lambda: f"{slot} must have Input's dtype {ctx.input_dtype('Input')}, got "
                    f"{ctx.input_dtype(slot)}")
    return d, p


@lstmp.infer_shape
def _(ctx):
    require_sequence_input(ctx, "lstmp", "dynamic_lstmp")
    check_activations(ctx, _ACT_ATTRS)
    for clip in ("cell_clip", "proj_clip"):
        ctx.enforce(np.isfinite(ctx.attr(clip)),
                    lambda: f"{clip} must be finite, got {ctx.attr(clip)}")
    d, p = _widths(ctx)
    bias = ctx.input_shape("Bias")
    width = (7 if ctx.attr("use_peepholes") else 4) * d if d >= 0 else -1
    kind = "7D: biases, then peephole weights" if ctx.attr("use_peepholes") else "4D"
    ctx.enforce(len(bias) == 2 and dims_match(bias[0], 1) and dims_match(bias[1], width),
                lambda: f"Bias must be [1, {width}] ({kind}), got {shape_str(bias)}",
                hint="use_peepholes=True needs a [1, 7D] Bias, False a [1, 4D] one")
    ctx.enforce(not ctx.has_input("H0") or ctx.has_input("C0"),
                "C0 must be given when H0 is (Paddle's lstmp takes both initial states or "
                "neither)")
    check_state(ctx, "H0", p)
    check_state(ctx, "C0", d)
    t, dtype = ctx.input_shape("Input")[0], ctx.input_dtype("Input")
    for slot, cols in (("Projection", p), ("Cell", d), ("BatchGate", 4 * d if d >= 0 else -1),
                       ("BatchCellPreAct", d), ("BatchHidden", d)):
        ctx.set_output(slot, (t, cols), dtype)
    ctx.share_lod("Input", "Projection")
    ctx.share_lod("Input", "Cell")


def _split(gates: np.ndarray, d: int):
    return gates[:, :d], gates[:, d:2 * d], gates[:, 2 * d:3 * d], gates[:, 3 * d:]


def _peepholes(attrs, bias: np.ndarray, d: int):
    if not attrs["use_peepholes"]:
        return None
    return bias[0, 4 * d:5 * d], bias[0, 5 * d:6 * d], bias[0, 6 * d:7 * d]


def _proj_act(attrs):
    """The projection's (activation, derivative): Paddle 1.8 applies cell_activation."""
    if attrs["proj_activation"] == "identity":
        return ACTIVATIONS["identity"]
    return ACTIVATIONS[attrs["cell_activation"]]


@lstmp.kernel(dtypes=FLOATS, lod=True)
def lstmp_dense(attrs, x, h0, c0, weight, proj_weight, bias):
    batch = SeqBatch.from_offsets(sequence_offsets(x), attrs["is_reverse"])
    w, pw, b = weight.numpy(), proj_weight.numpy(), bias.numpy()
    d, p = pw.shape
    gate_act = ACTIVATIONS[attrs["gate_activation"]][0]
    cell_act = ACTIVATIONS[attrs["cell_activation"]][0]
    cand_act = ACTIVATIONS[attrs["candidate_activation"]][0]
    proj_act = _proj_act(attrs)[0]
    cell_clip, proj_clip = attrs["cell_clip"], attrs["proj_clip"]
    peep = _peepholes(attrs, b, d)

    gates = x.numpy()[batch.rows] + b[:, :4 * d]  # pre-activations now, activations after
    rows, dtype = gates.shape[0], gates.dtype
    cell_b = np.empty((rows, d), dtype=dtype)
    act_cell_b, hidden_b = np.empty_like(cell_b), np.empty_like(cell_b)
    proj_b = np.empty((rows, p), dtype=dtype)
    r_init = batch.initial_state(h0, p, dtype, "H0")
    c_init = batch.initial_state(c0, d, dtype, "C0")
    for t in range(batch.num_steps):
        lo, hi, n = batch.step(t)
        if t == 0:
            r_prev, c_prev = r_init[:n], c_init[:n]
        else:
            q = batch.prev_start(t)
            r_prev, c_prev = proj_b[q:q + n], cell_b[q:q + n]
        g = gates[lo:hi]
        g += r_prev @ w
        c = gates_forward(g, c_prev, peep, (gate_act, cand_act), cell_clip)
        cell_b[lo:hi] = c
        act_cell_b[lo:hi] = cell_act(c)
        hidden_b[lo:hi] = g[:, 3 * d:] * act_cell_b[lo:hi]
        r = proj_act(hidden_b[lo:hi] @ pw)
        proj_b[lo:hi] = np.clip(r, -proj_clip, proj_clip) if proj_clip > 0 else r
    return (LoDTensor.unchecked(batch.scatter(proj_b), x.offsets),
            LoDTensor.unchecked(batch.scatter(cell_b), x.offsets),
            LoDTensor.unchecked(gates), LoDTensor.unchecked(act_cell_b),
            LoDTensor.unchecked(hidden_b))


@lstmp.grad_maker
def _(g):
    return [g.grad_op(
        "lstmp_grad",
        inputs={"Input": g.input("Input"), "H0": g.input("H0"), "C0": g.input("C0"),
                "Weight": g.input("Weight"), "ProjWeight": g.input("ProjWeight"),
                "Bias": g.input("Bias"), "Projection": g.output("Projection"),
                "Cell": g.output("Cell"), "BatchGate": g.output("BatchGate"),
                "BatchCellPreAct": g.output("BatchCellPreAct"),
                "BatchHidden": g.output("BatchHidden"),
                "Projection@GRAD": g.output_grad("Projection")},
        outputs={grad_name(slot): g.input_grad(slot) for slot in _GRAD_SLOTS},
        attrs={a.name: g.attr(a.name) for a in _ATTRS})]


lstmp_grad = register_op(
    "lstmp_grad",
    inputs=[In("Input"), In("H0", dispensable=True), In("C0", dispensable=True), In("Weight"),
            In("ProjWeight"), In("Bias"), In("Projection"), In("Cell"), In("BatchGate"),
            In("BatchCellPreAct"), In("BatchHidden"),
            In("Projection@GRAD", "absent means zero", dispensable=True)],
    outputs=[Out(grad_name(slot), dispensable=True) for slot in _GRAD_SLOTS],
    attrs=_ATTRS,
    doc="Gradients of lstmp by backpropagation through time over the same sorted batch.",
)


@lstmp_grad.infer_shape
def _(ctx):
    for slot in _GRAD_SLOTS:
        if ctx.has_input(slot):
            ctx.set_output(grad_name(slot), ctx.input_shape(slot), ctx.input_dtype(slot))
    ctx.share_lod("Input", "Input@GRAD")


@lstmp_grad.kernel(dtypes=FLOATS, lod=True)
def lstmp_grad_dense(attrs, x, h0, c0, weight, proj_weight, bias, projection, cell,
                     batch_gate, batch_act_cell, batch_hidden, d_proj):
    batch = SeqBatch.from_offsets(sequence_offsets(x), attrs["is_reverse"])
    w, pw, b = weight.numpy(), proj_weight.numpy(), bias.numpy()
    d, p = pw.shape
    gate_d = ACTIVATIONS[attrs["gate_activation"]][1]
    cell_d = ACTIVATIONS[attrs["cell_activation"]][1]
    cand_d = ACTIVATIONS[attrs["candidate_activation"]][1]
    proj_d = _proj_act(attrs)[1]
    cell_clip, proj_clip = attrs["cell_clip"], attrs["proj_clip"]
    peep = _peepholes(attrs, b, d)

    gates, act_cell_b, hidden_b = batch_gate.numpy(), batch_act_cell.numpy(), batch_hidden.numpy()
    proj_b, cell_b = projection.numpy()[batch.rows], cell.numpy()[batch.rows]
    dtype = gates.dtype
    # dr accumulates: the output gradient plus what each next step sends back.
    dr_b = (np.zeros(proj_b.shape, dtype) if d_proj is None
            else np.array(np.asarray(d_proj)[batch.rows], dtype=dtype))
    dc_b = np.zeros(cell_b.shape, dtype)
    d_gates = np.empty_like(gates)
    d_w, d_pw = np.zeros_like(w), np.zeros_like(pw)
    d_peep = np.zeros((3, d), dtype=dtype)
    r_init = batch.initial_state(h0, p, dtype, "H0")
    c_init = batch.initial_state(c0, d, dtype, "C0")
    dr_init, dc_init = np.zeros_like(r_init), np.zeros_like(c_init)
    for t in reversed(range(batch.num_steps)):
        lo, hi, n = batch.step(t)
        if t == 0:
            q, r_prev, c_prev, dr_to, dc_to = 0, r_init[:n], c_init[:n], dr_init, dc_init
        else:
            q = batch.prev_start(t)
            r_prev, c_prev, dr_to, dc_to = proj_b[q:q + n], cell_b[q:q + n], dr_b, dc_b
        r = proj_b[lo:hi]
        dr = dr_b[lo:hi]
        if proj_clip > 0:  # a clipped projection passes no gradient (Paddle: strictly inside)
            dr = dr * ((r > -proj_clip) & (r < proj_clip))
        dpre = dr * proj_d(r)
        h = hidden_b[lo:hi]
        d_pw += h.T @ dpre
        dh = dpre @ pw.T
        # the clip stops the gradient into what made a clipped cell
        dc_prev = gates_backward(gates[lo:hi], d_gates[lo:hi], cell_b[lo:hi], c_prev,
                                 act_cell_b[lo:hi], dh, dc_b[lo:hi], peep, d_peep,
                                 (gate_d, cell_d, cand_d), cell_clip)
        dg = d_gates[lo:hi]
        d_w += r_prev.T @ dg
        dr_to[q:q + n] += dg @ w.T
        dc_to[q:q + n] += dc_prev
    d_bias = d_gates.sum(axis=0)
    if peep is not None:
        d_bias = np.concatenate([d_bias, d_peep.reshape(-1)])
    return (LoDTensor.unchecked(batch.scatter(d_gates), x.offsets),
            LoDTensor.unchecked(batch.unsort_state(dr_init)),
            LoDTensor.unchecked(batch.unsort_state(dc_init)),
            LoDTensor.unchecked(d_w), LoDTensor.unchecked(d_pw),
            LoDTensor.unchecked(d_bias.reshape(1, -1).astype(dtype)))

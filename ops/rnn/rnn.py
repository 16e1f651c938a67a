"""rnn: Paddle 2.x's fused multi-layer, optionally bidirectional LSTM / GRU / simple RNN
(what paddle.nn.LSTM, GRU and SimpleRNN save). Forward (inference) only.

Input is time-major [T, B, I]. PreState is [h0] (GRU, RNN_*) or [h0, c0] (LSTM), each
[num_layers * D, B, H] with D = 2 when is_bidirec; row l * D + d is layer l, direction d.
WeightList holds first every (W_ih [G*H, in], W_hh [G*H, H]) pair, then every
(b_ih [G*H], b_hh [G*H]) pair, both in that layer-major, direction-minor order
(G = 4 LSTM, 3 GRU, 1 RNN). Per step, with a = x @ W_ih^T + b_ih, b = h @ W_hh^T + b_hh:

    LSTM      i, f, g, o = split(a + b, 4); c = sig(f) c + sig(i) tanh(g); h = sig(o) tanh(c)
    GRU       r, z, n splits of a and b: r = sig(a_r + b_r), z = sig(a_z + b_z),
              n = tanh(a_n + r * b_n), h = (h - n) * z + n
    RNN_TANH  h = tanh(a + b);  RNN_RELU  h = max(a + b, 0)

The backward direction walks t = T-1 .. 0. Layer l > 0 reads the previous layer's Out
(directions concatenated). Out is [T, B, D*H]; State the last h (and c) per layer and
direction. With SequenceLength (int [B]) a sequence's steps at t >= length leave its
state unchanged and output zeros, so the backward direction starts at its last real step.
Reserve and DropoutState are Paddle's training scratch; here they are empty. Dropout
between layers only acts in training, which this op refuses (dropout_prob > 0 with
is_test False).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}

rnn = register_op(
    "rnn",
    inputs=[In("Input", "[T, B, input_size], time-major"),
            In("PreState", "[h0] or [h0, c0] (LSTM), each [layers * dirs, B, H]",
               duplicable=True),
            In("WeightList", "every W_ih, W_hh pair, then every b_ih, b_hh pair",
               duplicable=True),
            In("SequenceLength", "int [B]: each sequence's length", dispensable=True)],
    outputs=[Out("Out", "[T, B, dirs * H]"),
             Out("State", "the final [h] or [h, c], shaped like PreState", duplicable=True),
             Out("Reserve", "Paddle's training scratch (empty here)", dispensable=True),
             Out("DropoutState", "Paddle's dropout mask state (empty here)",
                 dispensable=True)],
    attrs=[Attr("mode", "string", "RNN_TANH", "LSTM, GRU, RNN_TANH or RNN_RELU"),
           Attr("input_size", "int", 10, "the features of Input"),
           Attr("hidden_size", "int", 100, "H"),
           Attr("num_layers", "int", 1, "stacked layers"),
           Attr("is_bidirec", "bool", False, "add a backward direction"),
           Attr("dropout_prob", "float", 0.0, "dropout between layers (training only)"),
           Attr("seed", "int", 0, "the dropout seed"),
           Attr("is_test", "bool", False, "inference mode: no dropout")],
    key_inputs=["Input"],
    doc=__doc__,
)


@rnn.infer_shape
def _(ctx):
    mode = ctx.attr("mode")
    ctx.enforce(mode in GATES, lambda: f"mode must be one of {', '.join(GATES)}, got {mode!r}")
    ctx.enforce(ctx.attr("dropout_prob") == 0 or ctx.attr("is_test"),
                lambda: f"dropout between layers (dropout_prob={ctx.attr('dropout_prob')}) is "
                f"training-only and not implemented; run the program with is_test=True")
    x = ctx.input_shape("Input")
    ctx.enforce(len(x) == 3, lambda: f"Input must be [T, B, input_size], got {shape_str(x)}")
    hidden, layers = ctx.attr("hidden_size"), ctx.attr("num_layers")
    dirs = 2 if ctx.attr("is_bidirec") else 1
    ctx.enforce(x[2] < 0 or x[2] == ctx.attr("input_size"),
                lambda: f"Input's last dim {x[2]} must equal input_size {ctx.attr('input_size')}")
    states = 2 if mode == "LSTM" else 1
    ctx.enforce(ctx.input_count("PreState") == states,
                lambda: f"mode {mode} needs {states} PreState tensors, got "
                f"{ctx.input_count('PreState')}")
    ctx.enforce(ctx.input_count("WeightList") == 4 * layers * dirs, lambda:
                f"WeightList must hold 4 * num_layers * dirs = {4 * layers * dirs} tensors, "
                f"got {ctx.input_count('WeightList')}")
    for k, s in enumerate(ctx.input_shapes("PreState")):
        ctx.enforce(len(s) == 3 and s[0] in (-1, layers * dirs) and s[2] in (-1, hidden), lambda:
                    f"PreState[{k}] must be [{layers * dirs}, B, {hidden}], got {shape_str(s)}")
    dtype = ctx.input_dtype("Input")
    ctx.set_output("Out", [x[0], x[1], dirs * hidden], dtype)
    for k in range(len(ctx.output_names("State"))):
        ctx.set_output("State", [layers * dirs, x[1], hidden], dtype, i=k)
    if ctx.has_output("Reserve"):
        ctx.set_output("Reserve", [0], dtype)
    if ctx.has_output("DropoutState"):
        ctx.set_output("DropoutState", [0], np.uint8)


def _lstm_steps(steps, w_hh_t, h, c):
    """LSTM steps over `steps`, pairs (gates_in [B, 4H], h_out [B, H]); `c` is updated in
    place and each step's h written into its h_out. Returns the last h.

    The gates come in the order i, f, o, g with i, f and o halved (see _prepared):
    gates_in is (x @ W_ih^T + b_ih + b_hh) there and `w_hh_t` W_hh^T. Then sig(x) =
    tanh(x / 2) / 2 + 1/2 makes all four activations one tanh over the row and a
    multiply-add over its first three quarters. One gate buffer and its views serve
    every step and every call writes with out=: a step at batch 1 costs its ten numpy
    calls, no slicing and no temporaries."""
    batch, hidden = c.shape
    gates = np.empty((batch, 4 * hidden), c.dtype)
    sig, g = gates[:, :3 * hidden], gates[:, 3 * hidden:]
    i, f, o = gates[:, :hidden], gates[:, hidden:2 * hidden], gates[:, 2 * hidden:3 * hidden]
    half = c.dtype.type(0.5)
    dot, add, mul, tanh = np.dot, np.add, np.multiply, np.tanh
    for gates_in, h_out in steps:
        dot(h, w_hh_t, out=gates)
        add(gates, gates_in, out=gates)
        tanh(gates, out=gates)
        mul(sig, half, out=sig)
        add(sig, half, out=sig)
        mul(g, i, out=g)  # i * tanh(g)
        mul(c, f, out=c)  # f * c
        add(c, g, out=c)
        tanh(c, out=h_out)
        mul(h_out, o, out=h_out)  # o * tanh(c)
        h = h_out
    return h


def _gru_steps(steps, w_hh_t, b_hn, h):
    """GRU steps (see _lstm_steps): r and z come halved in gates_in (x @ W_ih^T + b_ih,
    plus b_hh for r and z) and in `w_hh_t`, so sig is again a tanh and a multiply-add;
    b_hn, the candidate's recurrent bias, is added each step (r scales it)."""
    batch, hidden = h.shape
    gates = np.empty((batch, 3 * hidden), h.dtype)
    rz, n = gates[:, :2 * hidden], gates[:, 2 * hidden:]
    r, z = gates[:, :hidden], gates[:, hidden:2 * hidden]
    half = h.dtype.type(0.5)
    dot, add, sub, mul, tanh = np.dot, np.add, np.subtract, np.multiply, np.tanh
    for gates_in, h_out in steps:
        dot(h, w_hh_t, out=gates)
        add(rz, gates_in[:, :2 * hidden], out=rz)
        tanh(rz, out=rz)
        mul(rz, half, out=rz)
        add(rz, half, out=rz)
        add(n, b_hn, out=n)
        mul(n, r, out=n)
        add(n, gates_in[:, 2 * hidden:], out=n)
        tanh(n, out=n)
        sub(h, n, out=h_out)  # h' = (h - n) * z + n
        mul(h_out, z, out=h_out)
        add(h_out, n, out=h_out)
        h = h_out
    return h


def _plain_steps(steps, w_hh_t, h, relu: bool):
    """RNN_TANH / RNN_RELU steps: h' = act(h @ W_hh^T + gates_in), written in h_out."""
    dot, add = np.dot, np.add
    act = np.maximum if relu else None
    zero = h.dtype.type(0)
    for gates_in, h_out in steps:
        dot(h, w_hh_t, out=h_out)
        add(h_out, gates_in, out=h_out)
        if relu:
            act(h_out, zero, out=h_out)
        else:
            np.tanh(h_out, out=h_out)
        h = h_out
    return h


def _gate_rows(mode: str, w: np.ndarray, hidden: int) -> np.ndarray:
    """A weight's (or bias's) gate rows as the step loops take them, in one copy: LSTM's
    i, f, g, o reordered to i, f, o, g with i, f, o halved; GRU's r and z halved. Halving
    is exact (a power of two)."""
    half = w.dtype.type(0.5)
    rows = np.empty_like(w)
    if mode == "LSTM":
        np.multiply(w[:2 * hidden], half, out=rows[:2 * hidden])
        np.multiply(w[3 * hidden:], half, out=rows[2 * hidden:3 * hidden])
        rows[3 * hidden:] = w[2 * hidden:3 * hidden]
    else:
        np.multiply(w[:2 * hidden], half, out=rows[:2 * hidden])
        rows[2 * hidden:] = w[2 * hidden:]
    return rows


def _prepared(mode: str, weights, dtype, batch: int):
    """(W_ih, bias of the projection, W_hh^T, b_hn) as the step loops take them: for LSTM
    and GRU the gate rows of _gate_rows; LSTM and RNN both biases in the projection; GRU
    b_hh's r and z in the projection and its n part (b_hn) kept for the steps.

    W_hh^T is a view of the rows at batch 1 (OpenBLAS's GEMV reads it as fast) and a
    contiguous copy for more rows, where the transposed view makes every step's GEMM 1.5
    to 3 times slower (64 LSTM steps, H = 128, B = 4: 3.2 -> 1.1 ms)."""
    w_ih, w_hh, b_ih, b_hh = (np.asarray(w, dtype) for w in weights)
    hidden = w_hh.shape[1]
    b_hn = None
    if mode == "LSTM":
        w_ih, bias, w_hh = (_gate_rows(mode, w_ih, hidden), _gate_rows(mode, b_ih + b_hh, hidden),
                            _gate_rows(mode, w_hh, hidden))
    elif mode == "GRU":
        bias = b_ih.copy()
        bias[:2 * hidden] += b_hh[:2 * hidden]
        w_ih, bias, w_hh = (_gate_rows(mode, w_ih, hidden), _gate_rows(mode, bias, hidden),
                            _gate_rows(mode, w_hh, hidden))
        b_hn = b_hh[2 * hidden:]
    else:
        bias = b_ih + b_hh
    return w_ih, bias, (w_hh.T if batch == 1 else np.ascontiguousarray(w_hh.T)), b_hn


def run_direction(mode: str, x, weights, h0, c0, lengths, reverse: bool):
    """One layer, one direction over x [T, B, in]: (outputs [T, B, H], last h, last c).

    With `lengths`, every row steps at every t (one GEMM for the batch) and the padded
    steps are undone around it: a forward row's final state is taken after its last
    real step, a reverse row restarts from h0 (c0) at its last real step, and the
    outputs at t >= length are zeroed at the end."""
    steps, batch = x.shape[:2]
    hidden = h0.shape[-1]
    w_ih, bias, w_hh_t, b_hn = _prepared(mode, weights, x.dtype, batch)
    # Every step's input projection in one GEMM over the [T * B, in] rows.
    projected = np.dot(x.reshape(steps * batch, x.shape[2]), w_ih.T)
    projected += bias
    projected = projected.reshape(steps, batch, projected.shape[1])
    out = np.empty((steps, batch, hidden), x.dtype)
    c = None if c0 is None else np.array(c0)
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    pairs = list(zip(projected, out, strict=True))
    if reverse:
        pairs.reverse()

    def run(segment, h):
        if mode == "LSTM":
            return _lstm_steps(segment, w_hh_t, h, c)
        if mode == "GRU":
            return _gru_steps(segment, w_hh_t, b_hn, h)
        return _plain_steps(segment, w_hh_t, h, mode == "RNN_RELU")

    if lengths is None:
        return out, run(pairs, h0), c
    last_step = lengths - 1  # a row's last real step
    h_last = np.array(h0)
    c_last = None if c0 is None else np.array(c0)
    h, done = h0, 0
    for k, t in enumerate(order):
        rows = np.flatnonzero(last_step == t)
        if not rows.size:
            continue
        if reverse:
            # Rows whose sequence ends at t start here: their state so far is padding.
            h = run(pairs[done:k], h)
            done = k
            if k:
                h[rows] = h0[rows]  # h is out[t + 1], a padded step zeroed below
                if c is not None:
                    c[rows] = c0[rows]
        else:
            h = run(pairs[done:k + 1], h)
            done = k + 1
            h_last[rows] = h[rows]
            if c is not None:
                c_last[rows] = c[rows]
    h = run(pairs[done:], h)
    if reverse:
        alive = last_step >= 0
        h_last[alive] = h[alive]
        if c is not None:
            c_last[alive] = c[alive]
    out[np.arange(steps)[:, None] > last_step[None, :]] = 0
    return out, h_last, c_last


def rnn_forward(mode: str, x, pre_states, weights, lengths, num_layers: int, bidirec: bool):
    """(Out, [h_n] or [h_n, c_n]) of the stacked network; see the module docstring."""
    dirs = 2 if bidirec else 1
    n = num_layers * dirs
    w_pairs, b_pairs = weights[:2 * n], weights[2 * n:]
    if lengths is not None:
        # Lengths past T run every step; negative ones none (a row of padding).
        lengths = np.clip(np.asarray(lengths).reshape(-1), 0, x.shape[0])
    h0 = np.asarray(pre_states[0], x.dtype)
    c0 = np.asarray(pre_states[1], x.dtype) if mode == "LSTM" else None
    h_last, c_last = np.empty_like(h0), (np.empty_like(c0) if c0 is not None else None)
    layer_in = x
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            ws = (w_pairs[2 * k], w_pairs[2 * k + 1], b_pairs[2 * k], b_pairs[2 * k + 1])
            out, h, c = run_direction(mode, layer_in, ws, h0[k], None if c0 is None else c0[k],
                                      lengths, reverse=d == 1)
            outs.append(out)
            h_last[k] = h
            if c_last is not None:
                c_last[k] = c
        layer_in = outs[0] if dirs == 1 else np.concatenate(outs, axis=-1)
    states = [h_last] if c_last is None else [h_last, c_last]
    return layer_in.astype(x.dtype, copy=False), [s.astype(x.dtype, copy=False) for s in states]


@rnn.kernel(dtypes=FLOATS)
def rnn_kernel(attrs, x, pre_states, weights, lengths):
    mode = attrs["mode"]
    if mode not in GATES:
        raise ValueError(f"rnn: mode must be one of {', '.join(GATES)}, got {mode!r}")
    hidden, gates = attrs["hidden_size"], GATES[mode]
    for k, w in enumerate(weights[:len(weights) // 2]):
        if w.shape[0] != gates * hidden:
            raise ValueError(f"rnn: WeightList[{k}] must have {gates} * hidden_size = "
                             f"{gates * hidden} rows for mode {mode}, got {shape_str(w.shape)}")
        dirs = 2 if attrs["is_bidirec"] else 1
        width = hidden if k % 2 else (x.shape[-1] if k < 2 * dirs else dirs * hidden)
        if w.ndim != 2 or w.shape[1] != width:
            kind = "W_hh" if k % 2 else "W_ih"
            raise ValueError(f"rnn: WeightList[{k}] ({kind}) must have {width} columns, got "
                             f"{shape_str(w.shape)}")
    out, states = rnn_forward(mode, x, list(pre_states), list(weights), lengths,
                              attrs["num_layers"], attrs["is_bidirec"])
    return out, states, np.zeros(0, x.dtype), np.zeros(0, np.uint8)

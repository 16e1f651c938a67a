"""The fused `rnn` op (paddle.nn.LSTM/GRU/SimpleRNN) against cells written out here one
sequence and one step at a time (the Paddle fixture rnn_text checks it against Paddle)."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_op

rng = np.random.RandomState(5)
GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _sig(v):
    return 1 / (1 + math.exp(-v))


def _step(mode, x, h, c, w_ih, w_hh, b_ih, b_hh):
    """One sequence, one step, entry by entry (H small)."""
    hidden = h.size
    a = [sum(w_ih[r, k] * x[k] for k in range(x.size)) + b_ih[r] for r in range(w_ih.shape[0])]
    b = [sum(w_hh[r, k] * h[k] for k in range(hidden)) + b_hh[r] for r in range(w_hh.shape[0])]
    new_h, new_c = np.zeros(hidden), None
    if mode == "LSTM":
        new_c = np.zeros(hidden)
        for j in range(hidden):
            i_g = _sig(a[j] + b[j])
            f_g = _sig(a[hidden + j] + b[hidden + j])
            g_g = math.tanh(a[2 * hidden + j] + b[2 * hidden + j])
            o_g = _sig(a[3 * hidden + j] + b[3 * hidden + j])
            new_c[j] = f_g * c[j] + i_g * g_g
            new_h[j] = o_g * math.tanh(new_c[j])
    elif mode == "GRU":
        for j in range(hidden):
            r = _sig(a[j] + b[j])
            z = _sig(a[hidden + j] + b[hidden + j])
            n = math.tanh(a[2 * hidden + j] + r * b[2 * hidden + j])
            new_h[j] = z * h[j] + (1 - z) * n
    else:
        for j in range(hidden):
            s = a[j] + b[j]
            new_h[j] = math.tanh(s) if mode == "RNN_TANH" else max(s, 0.0)
    return new_h, new_c


def _reference(mode, x, h0, c0, weights, layers, dirs, lengths):
    steps, batch, _ = x.shape
    hidden = h0.shape[-1]
    n = layers * dirs
    out_h, out_c = h0.copy(), None if c0 is None else c0.copy()
    layer_in = x
    for layer in range(layers):
        layer_out = np.zeros((steps, batch, dirs * hidden))
        for d in range(dirs):
            k = layer * dirs + d
            w = (weights[2 * k], weights[2 * k + 1], weights[2 * n + 2 * k],
                 weights[2 * n + 2 * k + 1])
            for s in range(batch):
                length = steps if lengths is None else lengths[s]
                h = h0[k, s].copy()
                c = None if c0 is None else c0[k, s].copy()
                order = range(length) if d == 0 else range(length - 1, -1, -1)
                for t in order:
                    h, c = _step(mode, layer_in[t, s], h, c, *w)
                    layer_out[t, s, d * hidden:(d + 1) * hidden] = h
                out_h[k, s] = h
                if c is not None:
                    out_c[k, s] = c
        layer_in = layer_out
    return layer_in, out_h, out_c


def _inputs(mode, steps, batch, in_size, hidden, layers, dirs):
    g = GATES[mode]
    ws, bs = [], []
    for layer in range(layers):
        for _ in range(dirs):
            width = in_size if layer == 0 else dirs * hidden
            ws += [rng.uniform(-0.5, 0.5, (g * hidden, width)),
                   rng.uniform(-0.5, 0.5, (g * hidden, hidden))]
            bs += [rng.uniform(-0.5, 0.5, g * hidden), rng.uniform(-0.5, 0.5, g * hidden)]
    x = rng.uniform(-1, 1, (steps, batch, in_size))
    h0 = rng.uniform(-0.5, 0.5, (layers * dirs, batch, hidden))
    c0 = rng.uniform(-0.5, 0.5, (layers * dirs, batch, hidden)) if mode == "LSTM" else None
    return x, h0, c0, ws + bs


@pytest.mark.parametrize("mode", list(GATES))
@pytest.mark.parametrize("layers,bidirec,with_lengths",
                         [(1, False, False), (2, True, False), (2, False, True),
                          (1, True, True)])
def test_rnn_matches_stepwise_cells(mode, layers, bidirec, with_lengths):
    steps, batch, in_size, hidden = 4, 3, 3, 2
    dirs = 2 if bidirec else 1
    x, h0, c0, weights = _inputs(mode, steps, batch, in_size, hidden, layers, dirs)
    lengths = np.array([4, 2, 3], np.int64) if with_lengths else None
    out, h_n, c_n = _reference(mode, x, h0, c0, weights, layers, dirs, lengths)
    inputs = {"Input": x, "PreState": [("h0", h0)] + ([("c0", c0)] if c0 is not None else []),
              "WeightList": [(f"w{k}", w) for k, w in enumerate(weights)]}
    if lengths is not None:
        inputs["SequenceLength"] = lengths
    states = 2 if mode == "LSTM" else 1
    attrs = {"mode": mode, "input_size": in_size, "hidden_size": hidden,
             "num_layers": layers, "is_bidirec": bidirec, "is_test": True}
    check_op("rnn", inputs, attrs,
             {"Out": out, "State": [h_n] + ([c_n] if c_n is not None else [])},
             outputs={"Out": 1, "State": states, "Reserve": 1, "DropoutState": 1})


@pytest.mark.parametrize("mode", list(GATES))
@pytest.mark.parametrize("bidirec", [False, True])
def test_rnn_lengths_zero_one_and_full(mode, bidirec):
    """A length-0 row keeps h0 (c0) and outputs zeros; a length-1 row in the reverse
    direction starts from h0 at t = 0; the rows step together in one batch."""
    steps, batch, in_size, hidden = 5, 4, 3, 3
    dirs = 2 if bidirec else 1
    x, h0, c0, weights = _inputs(mode, steps, batch, in_size, hidden, 2, dirs)
    lengths = np.array([0, 5, 1, 3], np.int32)
    out, h_n, c_n = _reference(mode, x, h0, c0, weights, 2, dirs, lengths)
    inputs = {"Input": x, "PreState": [("h0", h0)] + ([("c0", c0)] if c0 is not None else []),
              "WeightList": [(f"w{k}", w) for k, w in enumerate(weights)],
              "SequenceLength": lengths}
    attrs = {"mode": mode, "input_size": in_size, "hidden_size": hidden,
             "num_layers": 2, "is_bidirec": bidirec, "is_test": True}
    states = 2 if mode == "LSTM" else 1
    check_op("rnn", inputs, attrs,
             {"Out": out, "State": [h_n] + ([c_n] if c_n is not None else [])},
             outputs={"Out": 1, "State": states, "Reserve": 1, "DropoutState": 1})


@pytest.mark.parametrize("mode", list(GATES))
@pytest.mark.parametrize("batch", [1, 2])
def test_rnn_float32(mode, batch):
    """float32 in, float32 out (check_op compares dtypes), to float32 rounding of the
    float64 cells; at batch 1 the steps read W_hh^T as a view, at 2 as a copy."""
    steps, in_size, hidden = 6, 4, 5
    x, h0, c0, weights = _inputs(mode, steps, batch, in_size, hidden, 1, 2)
    out, h_n, c_n = _reference(mode, x, h0, c0, weights, 1, 2, None)
    f32 = np.float32
    inputs = {"Input": x.astype(f32),
              "PreState": [("h0", h0.astype(f32))] + ([("c0", c0.astype(f32))] if c0 is not None
                                                      else []),
              "WeightList": [(f"w{k}", w.astype(f32)) for k, w in enumerate(weights)]}
    attrs = {"mode": mode, "input_size": in_size, "hidden_size": hidden,
             "num_layers": 1, "is_bidirec": True, "is_test": True}
    states = 2 if mode == "LSTM" else 1
    expected = [out, h_n] + ([c_n] if c_n is not None else [])
    out, h_n, *c_n = (v.astype(f32) for v in expected)
    check_op("rnn", inputs, attrs, {"Out": out, "State": [h_n] + c_n},
             atol=1e-5, rtol=1e-4,
             outputs={"Out": 1, "State": states, "Reserve": 1, "DropoutState": 1})


def test_rnn_errors():
    x, h0, c0, weights = _inputs("GRU", 3, 2, 3, 2, 1, 1)
    base = {"Input": x, "PreState": [("h0", h0)],
            "WeightList": [(f"w{k}", w) for k, w in enumerate(weights)]}
    attrs = {"mode": "GRU", "input_size": 3, "hidden_size": 2, "is_test": True}
    outs = {"Out": 1, "State": 1}
    with pytest.raises(ProgramError, match="mode must be one of LSTM, GRU"):
        check_op("rnn", base, dict(attrs, mode="SRU"), outputs=outs)
    with pytest.raises(ProgramError, match="mode LSTM needs 2 PreState tensors, got 1"):
        check_op("rnn", base, dict(attrs, mode="LSTM"), outputs=outs)
    with pytest.raises(ProgramError, match="WeightList must hold 4 \\* num_layers \\* dirs = 8"):
        check_op("rnn", base, dict(attrs, is_bidirec=True), outputs=outs)
    with pytest.raises(ProgramError, match="Input's last dim 3 must equal input_size 4"):
        check_op("rnn", base, dict(attrs, input_size=4), outputs=outs)
    with pytest.raises(ProgramError, match="dropout between layers .* is training-only"):
        check_op("rnn", base, dict(attrs, dropout_prob=0.5, is_test=False), outputs=outs)
    with pytest.raises(ProgramError, match="WeightList\\[1\\] \\(W_hh\\) must have 2 columns, "
                                           "got \\[6, 3\\]"):
        bad = list(base["WeightList"])
        bad[1] = ("w1", np.zeros((6, 3)))
        check_op("rnn", dict(base, WeightList=bad), attrs, outputs=outs)
    with pytest.raises(ProgramError, match="WeightList\\[0\\] must have 4 \\* hidden_size = 8"):
        check_op("rnn", dict(base, PreState=[("h0", h0), ("c0", h0)]),
                 dict(attrs, mode="LSTM"), outputs=outs)


@pytest.mark.parametrize("mode", list(GATES))
@pytest.mark.parametrize("steps, batch", [(0, 2), (3, 0)])
def test_rnn_empty_sequence_or_batch(mode, steps, batch):
    """No steps: the states are the initial ones; no rows: empty outputs (the whole
    sequence's projection is one GEMM over [T * B, in] rows, zero of them here)."""
    from paddle_ir.ops.rnn.rnn import rnn_kernel
    x, h0, c0, weights = _inputs(mode, max(steps, 1), max(batch, 1), 3, 2, 1, 2)
    x = np.zeros((steps, batch, 3))
    h0, c0 = h0[:, :batch], None if c0 is None else c0[:, :batch]
    attrs = {"mode": mode, "hidden_size": 2, "num_layers": 1, "is_bidirec": True}
    out, states, _, _ = rnn_kernel(attrs, x, [h0] + ([c0] if c0 is not None else []),
                                   weights, None)
    assert out.shape == (steps, batch, 4)
    np.testing.assert_array_equal(states[0], h0 if steps == 0 else np.zeros((2, 0, 2)))
    if c0 is not None:
        np.testing.assert_array_equal(states[1], c0)

"""lstm / gru (+ grads) and dynamic_lstm / dynamic_gru against a plain per-sequence numpy loop.

The references below step one sequence at a time, one row at a time, straight
from the formulas in PADDLE_FORMAT.md; the ops step all sequences together in
a sorted batch, so agreement checks the batching, the reverse order and the
row placement as well as the math.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import KernelError, ShapeInferenceError
from paddle_ir.ops.rnn.rnn_batch import SeqBatch
from tests.op_test import check_grad, check_op

ACTS = {
    "sigmoid": lambda v: 1.0 / (1.0 + np.exp(-v)),
    "tanh": np.tanh,
    "relu": lambda v: np.maximum(v, 0.0),
    "identity": lambda v: v,
}


def _sequence_rows(lengths, reverse):
    start = 0
    for s, n in enumerate(lengths):
        rows = list(range(start, start + n))
        yield s, rows[::-1] if reverse else rows
        start += n


def ref_lstm(x, lengths, w, b, h0=None, c0=None, peepholes=True, reverse=False,
             gate="sigmoid", cell="tanh", cand="tanh"):
    d = w.shape[0]
    hidden, cell_out = np.zeros((len(x), d)), np.zeros((len(x), d))
    for s, rows in _sequence_rows(lengths, reverse):
        h = np.zeros(d) if h0 is None else h0[s].astype(np.float64)
        c = np.zeros(d) if c0 is None else c0[s].astype(np.float64)
        for r in rows:
            z = x[r] + h @ w + b[0, :4 * d]
            zc, zi, zf, zo = z[:d], z[d:2 * d], z[2 * d:3 * d], z[3 * d:]
            if peepholes:
                zi = zi + b[0, 4 * d:5 * d] * c
                zf = zf + b[0, 5 * d:6 * d] * c
            c = ACTS[gate](zf) * c + ACTS[gate](zi) * ACTS[cand](zc)
            if peepholes:
                zo = zo + b[0, 6 * d:] * c
            h = ACTS[gate](zo) * ACTS[cell](c)
            hidden[r], cell_out[r] = h, c
    return hidden, cell_out


def ref_gru(x, lengths, w, b=None, h0=None, reverse=False, origin=False, gate="sigmoid",
            act="tanh"):
    d = w.shape[0]
    w_gates = w.reshape(-1)[:2 * d * d].reshape(d, 2 * d)
    w_cand = w.reshape(-1)[2 * d * d:].reshape(d, d)
    bias = np.zeros(3 * d) if b is None else b[0]
    hidden = np.zeros((len(x), d))
    for s, rows in _sequence_rows(lengths, reverse):
        h = np.zeros(d) if h0 is None else h0[s].astype(np.float64)
        for r in rows:
            zg = x[r, :2 * d] + bias[:2 * d] + h @ w_gates
            u, rs = ACTS[gate](zg[:d]), ACTS[gate](zg[d:])
            c = ACTS[act](x[r, 2 * d:] + bias[2 * d:] + (rs * h) @ w_cand)
            h = u * h + (1 - u) * c if origin else (1 - u) * h + u * c
            hidden[r] = h
    return hidden


def lod(array, lengths):
    return pir.create_lod_tensor(array, [lengths])


def lstm_inputs(lengths, d, dtype=np.float64, peepholes=True, states=False, seed=0):
    rng = np.random.RandomState(seed)
    inputs = {
        "Input": lod(rng.uniform(-1, 1, (sum(lengths), 4 * d)).astype(dtype), lengths),
        "Weight": rng.uniform(-0.5, 0.5, (d, 4 * d)).astype(dtype),
        "Bias": rng.uniform(-0.5, 0.5, (1, (7 if peepholes else 4) * d)).astype(dtype),
    }
    if states:
        inputs["H0"] = rng.uniform(-1, 1, (len(lengths), d)).astype(dtype)
        inputs["C0"] = rng.uniform(-1, 1, (len(lengths), d)).astype(dtype)
    return inputs


def gru_inputs(lengths, d, dtype=np.float64, bias=True, h0=False, seed=0):
    rng = np.random.RandomState(seed)
    inputs = {
        "Input": lod(rng.uniform(-1, 1, (sum(lengths), 3 * d)).astype(dtype), lengths),
        "Weight": rng.uniform(-0.5, 0.5, (d, 3 * d)).astype(dtype),
    }
    if bias:
        inputs["Bias"] = rng.uniform(-0.5, 0.5, (1, 3 * d)).astype(dtype)
    if h0:
        inputs["H0"] = rng.uniform(-1, 1, (len(lengths), d)).astype(dtype)
    return inputs


def _np(inputs, slot):
    v = inputs.get(slot)
    return None if v is None else np.asarray(v)


# --- the sorted batch --------------------------------------------------------------------------


def test_seq_batch_layout_forward_and_reverse():
    offsets = np.array([0, 2, 5, 6])  # lengths 2, 3, 1
    fwd = SeqBatch.from_offsets(offsets, is_reverse=False)
    assert fwd.order.tolist() == [1, 0, 2]
    assert fwd.starts.tolist() == [0, 3, 5, 6]
    assert fwd.rows.tolist() == [2, 0, 5, 3, 1, 4]
    rev = SeqBatch.from_offsets(offsets, is_reverse=True)
    assert rev.rows.tolist() == [4, 1, 5, 3, 0, 2]


def test_seq_batch_skips_empty_sequences():
    batch = SeqBatch.from_offsets(np.array([0, 2, 2, 3]), is_reverse=False)
    assert batch.order.tolist() == [0, 2, 1]
    assert batch.starts.tolist() == [0, 2, 3]
    assert batch.rows.tolist() == [0, 2, 1]


# --- lstm forward ------------------------------------------------------------------------------


@pytest.mark.parametrize("peepholes", [True, False])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("states", [False, True])
def test_lstm_matches_per_sequence_loop(peepholes, reverse, states):
    lengths = [3, 1, 4, 2]
    inputs = lstm_inputs(lengths, 3, peepholes=peepholes, states=states)
    want_h, want_c = ref_lstm(np.asarray(inputs["Input"]), lengths, inputs["Weight"],
                              inputs["Bias"], _np(inputs, "H0"), _np(inputs, "C0"),
                              peepholes, reverse)
    check_op("lstm", inputs, {"use_peepholes": peepholes, "is_reverse": reverse},
             {"Hidden": lod(want_h, lengths), "Cell": lod(want_c, lengths)},
             batch_unknown=True)


def test_lstm_float32_other_activations_and_an_empty_sequence():
    lengths = [2, 0, 5, 1]
    inputs = lstm_inputs(lengths, 2, dtype=np.float32, states=True, seed=3)
    attrs = {"gate_activation": "sigmoid", "cell_activation": "relu",
             "candidate_activation": "identity", "is_reverse": True}
    want_h, want_c = ref_lstm(np.asarray(inputs["Input"], np.float64), lengths,
                              inputs["Weight"].astype(np.float64),
                              inputs["Bias"].astype(np.float64), inputs["H0"], inputs["C0"],
                              reverse=True, cell="relu", cand="identity")
    check_op("lstm", inputs, attrs,
             {"Hidden": lod(want_h.astype(np.float32), lengths),
              "Cell": lod(want_c.astype(np.float32), lengths)}, atol=1e-5)


def test_lstm_runs_over_the_last_lod_level_and_keeps_both():
    rng = np.random.RandomState(1)
    x = pir.create_lod_tensor(rng.uniform(-1, 1, (6, 8)), [[2, 1], [1, 3, 2]])
    inputs = lstm_inputs([1, 3, 2], 2)
    inputs["Input"] = x
    want_h, want_c = ref_lstm(x.numpy(), [1, 3, 2], inputs["Weight"], inputs["Bias"])
    result = check_op("lstm", inputs, {},
                      {"Hidden": pir.create_lod_tensor(want_h, [[2, 1], [1, 3, 2]])})
    assert result["Cell"][0].lod() == [[0, 2, 3], [0, 1, 4, 6]]


@pytest.mark.parametrize("lengths", [[], [0, 0]])
@pytest.mark.parametrize("op_type", ["lstm", "gru"])
def test_batches_without_rows(op_type, lengths):
    """No sequences, or only empty ones: empty outputs, and zero gradients for the rest."""
    make = lstm_inputs if op_type == "lstm" else gru_inputs
    inputs = make(lengths, 2, **({"states": True} if op_type == "lstm" else {"h0": True}))
    result = check_op(op_type, inputs, {}, {"Hidden": lod(np.zeros((0, 2)), lengths)})
    assert result["Hidden"][0].shape == (0, 2)
    wrt = ("Input", "Weight", "Bias", "H0") + (("C0",) if op_type == "lstm" else ())
    check_grad(op_type, inputs, {}, wrt=wrt, out_slot="Hidden")


# --- gru forward -------------------------------------------------------------------------------


@pytest.mark.parametrize("origin", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("h0", [False, True])
def test_gru_matches_per_sequence_loop(origin, reverse, h0):
    lengths = [2, 4, 1, 3]
    inputs = gru_inputs(lengths, 3, h0=h0)
    want = ref_gru(np.asarray(inputs["Input"]), lengths, inputs["Weight"], inputs["Bias"],
                   _np(inputs, "H0"), reverse, origin)
    check_op("gru", inputs, {"origin_mode": origin, "is_reverse": reverse},
             {"Hidden": lod(want, lengths)}, batch_unknown=True)


def test_gru_float32_without_bias_other_activations():
    lengths = [1, 3, 0, 2]
    inputs = gru_inputs(lengths, 2, dtype=np.float32, bias=False, h0=True, seed=5)
    want = ref_gru(np.asarray(inputs["Input"], np.float64), lengths,
                   inputs["Weight"].astype(np.float64), None, inputs["H0"], gate="sigmoid",
                   act="relu")
    check_op("gru", inputs, {"activation": "relu"},
             {"Hidden": lod(want.astype(np.float32), lengths)}, atol=1e-5)


def test_gru_weight_is_split_by_flat_memory_not_by_columns():
    # With W_c = 0 the candidate ignores h; a column split would read gate weights instead.
    d, lengths = 2, [3]
    inputs = gru_inputs(lengths, d)
    flat = inputs["Weight"].reshape(-1).copy()
    flat[2 * d * d:] = 0.0
    inputs["Weight"] = flat.reshape(d, 3 * d)
    assert np.abs(inputs["Weight"][:, 2 * d:]).sum() > 0  # the last columns are not W_c
    want = ref_gru(np.asarray(inputs["Input"]), lengths, inputs["Weight"], inputs["Bias"])
    check_op("gru", inputs, {}, {"Hidden": lod(want, lengths)})


# --- gradients ---------------------------------------------------------------------------------

LSTM_WRT = ("Input", "Weight", "Bias")


@pytest.mark.parametrize("out_slot", ["Hidden", "Cell"])
@pytest.mark.parametrize("peepholes, reverse, states", [
    (True, False, False), (True, True, True), (False, False, True), (False, True, False),
])
def test_lstm_gradients(out_slot, peepholes, reverse, states):
    lengths = [2, 1, 3]
    inputs = lstm_inputs(lengths, 2, peepholes=peepholes, states=states, seed=7)
    wrt = LSTM_WRT + (("H0", "C0") if states else ())
    check_grad("lstm", inputs, {"use_peepholes": peepholes, "is_reverse": reverse}, wrt=wrt,
               out_slot=out_slot)


def test_lstm_gradients_other_activations_and_length_one_sequences():
    inputs = lstm_inputs([1, 1, 2], 2, states=True, seed=11)
    check_grad("lstm", inputs, {"candidate_activation": "identity", "cell_activation": "relu",
                                "gate_activation": "tanh"},
               wrt=LSTM_WRT + ("H0", "C0"), out_slot="Hidden")


@pytest.mark.parametrize("origin, reverse, h0", [
    (False, False, False), (False, True, True), (True, False, True), (True, True, False),
])
def test_gru_gradients(origin, reverse, h0):
    inputs = gru_inputs([2, 1, 3], 2, h0=h0, seed=9)
    check_grad("gru", inputs, {"origin_mode": origin, "is_reverse": reverse},
               wrt=("Input", "Weight", "Bias") + (("H0",) if h0 else ()), out_slot="Hidden")


def test_gru_gradients_without_bias_and_length_one_sequences():
    inputs = gru_inputs([1, 2, 1], 2, bias=False, h0=True, seed=13)
    check_grad("gru", inputs, {"activation": "identity"}, wrt=("Input", "Weight", "H0"),
               out_slot="Hidden")


def test_lstm_grad_without_output_gradients_is_zero():
    """Hidden@GRAD and Cell@GRAD are optional: absent means nothing flows back."""
    from paddle_ir.ops.registry import get_op_def

    def f64_kernel(op_type):
        return next(k.fn for k in get_op_def(op_type).kernels.values()
                    if k.key.dtype == np.float64)

    inputs = lstm_inputs([2, 1], 2, states=True)
    fwd, bwd = f64_kernel("lstm"), f64_kernel("lstm_grad")
    attrs = {"use_peepholes": True, "is_reverse": False, "gate_activation": "sigmoid",
             "cell_activation": "tanh", "candidate_activation": "tanh"}
    args = [inputs["Input"]] + [pir.LoDTensor(inputs[s]) for s in ("H0", "C0", "Weight",
                                                                    "Bias")]
    hidden, cell, gate, act_cell = fwd(attrs, *args)
    grads = bwd(attrs, *args, hidden, cell, gate, act_cell, None, None)
    for g in grads:
        assert not np.asarray(g).any()


# --- build-time inference and errors -----------------------------------------------------------


def _program_with_data(lod_level, width):
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = pir.layers.data("x", [-1, width], lod_level=lod_level)
    return main, startup, x


@pytest.mark.parametrize("layer, width", [("dynamic_lstm", 8), ("dynamic_gru", 6)])
def test_layers_reject_inputs_without_lod_at_build_time(layer, width):
    main, startup, x = _program_with_data(0, width)
    with pir.program_guard(main, startup):
        with pytest.raises(ShapeInferenceError,
                           match=r"(?s)requires a sequence input \(lod_level >= 1\), but 'x' "
                                 r"has lod_level 0.*op created at "
                                 r"tests/ops/rnn/test_lstm_gru.py:\d+"
                                 r".*hint: declare the data with layers.data\(..., "
                                 r"lod_level=1\)"):
            getattr(pir.layers, layer)(x, 8 if layer == "dynamic_lstm" else 2)
    assert main.global_block().ops == [] and not startup.global_block().ops
    assert not any(v.persistable for v in main.global_block().vars.values())


@pytest.mark.parametrize("op_type, gates", [("lstm", 4), ("gru", 3)])
def test_ops_reject_inputs_without_lod(op_type, gates):
    d = 2
    inputs = {"Input": np.zeros((3, gates * d)), "Weight": np.zeros((d, gates * d)),
              "Bias": np.zeros((1, (7 if op_type == "lstm" else 3) * d))}
    with pytest.raises(ShapeInferenceError,
                       match=rf"Input of {op_type} must be a sequence .*lod_level 0"):
        check_op(op_type, inputs)


def test_lstm_input_width_must_be_four_d():
    inputs = lstm_inputs([2, 1], 2)
    inputs["Input"] = lod(np.zeros((3, 6)), [2, 1])
    with pytest.raises(ShapeInferenceError,
                       match=r"(?s)Input.shape\[1\] must be 4 \* D = 8 .*got "
                             r"Input.shape=\[3, 6\].*hint: project the input"):
        check_op("lstm", inputs)


def test_lstm_bias_width_follows_use_peepholes():
    inputs = lstm_inputs([2, 1], 2, peepholes=True)
    with pytest.raises(ShapeInferenceError, match=r"Bias must be \[1, 8\] \(4D\), got \[1, 14\]"):
        check_op("lstm", inputs, {"use_peepholes": False})


def test_gru_rejects_unknown_activation():
    with pytest.raises(ShapeInferenceError, match=r"activation must be one of .*got 'softsign'"):
        check_op("gru", gru_inputs([2], 2), {"activation": "softsign"})


def test_initial_state_rows_must_match_the_sequences_at_run_time():
    inputs = lstm_inputs([2, 1], 2, states=True)
    inputs["H0"] = inputs["H0"][:1]
    with pytest.raises(KernelError, match=r"H0 must have one row per sequence, shape \[2, 2\], "
                                          r"got \[1, 2\]"):
        check_op("lstm", inputs)


# --- layers ------------------------------------------------------------------------------------


def _run_layer(build, lengths, width, seed=0):
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = pir.layers.data("x", [-1, width], lod_level=1)
        fetch = build(x)
    scope = pir.Scope()
    exe = pir.Executor(check=True)
    exe.run(startup, scope=scope)
    rng = np.random.RandomState(seed)
    x_value = lod(rng.uniform(-1, 1, (sum(lengths), width)).astype(np.float32), lengths)
    params = {p.name: scope.find_var(p.name).get_tensor().numpy().copy()
              for p in main.global_block().all_parameters()}
    # Give the bias non-zero values so that its layout matters.
    for name, value in params.items():
        if ".b" in name:
            params[name] = rng.uniform(-0.5, 0.5, value.shape).astype(np.float32)
            scope.find_var(name).set(params[name])
    got = exe.run(main, feed={"x": x_value}, fetch_list=fetch, scope=scope, return_numpy=False)
    return main, x_value, params, got


def test_dynamic_lstm_layer_builds_and_runs():
    lengths = [3, 1, 2]

    def build(x):
        h, c = pir.layers.dynamic_lstm(x, 8, is_reverse=True)
        assert h.shape == (-1, 2) and c.shape == (-1, 2)
        assert h.lod_level == 1 and c.lod_level == 1
        return [h, c]

    main, x, params, (h, c) = _run_layer(build, lengths, 8)
    assert sorted(params) == ["lstm_0.b_0", "lstm_0.w_0"]
    assert params["lstm_0.w_0"].shape == (2, 8) and params["lstm_0.b_0"].shape == (1, 14)
    want_h, want_c = ref_lstm(x.numpy().astype(np.float64), lengths, params["lstm_0.w_0"],
                              params["lstm_0.b_0"], reverse=True)
    assert h.lod() == [[0, 3, 4, 6]] and c.lod() == [[0, 3, 4, 6]]
    np.testing.assert_allclose(h.numpy(), want_h, atol=1e-5)
    np.testing.assert_allclose(c.numpy(), want_c, atol=1e-5)


def test_dynamic_lstm_with_initial_states_and_no_peepholes():
    lengths = [2, 3]
    h0 = np.full((2, 3), 0.5, np.float32)
    c0 = np.full((2, 3), -0.25, np.float32)

    def build(x):
        h0_var = pir.layers.fill_constant([2, 3], "float32", 0.5)
        c0_var = pir.layers.fill_constant([2, 3], "float32", -0.25)
        return list(pir.layers.dynamic_lstm(x, 12, h_0=h0_var, c_0=c0_var,
                                            use_peepholes=False))

    _, x, params, (h, _c) = _run_layer(build, lengths, 12)
    assert params["lstm_0.b_0"].shape == (1, 12)
    want_h, _ = ref_lstm(x.numpy().astype(np.float64), lengths, params["lstm_0.w_0"],
                         params["lstm_0.b_0"], h0, c0, peepholes=False)
    np.testing.assert_allclose(h.numpy(), want_h, atol=1e-5)


@pytest.mark.parametrize("origin", [False, True])
def test_dynamic_gru_layer_builds_and_runs(origin):
    lengths = [1, 4, 2]

    def build(x):
        h = pir.layers.dynamic_gru(x, 3, origin_mode=origin)
        assert h.shape == (-1, 3) and h.lod_level == 1
        return [h]

    _, x, params, (h,) = _run_layer(build, lengths, 9)
    assert params["gru_0.w_0"].shape == (3, 9) and params["gru_0.b_0"].shape == (1, 9)
    want = ref_gru(x.numpy().astype(np.float64), lengths, params["gru_0.w_0"],
                   params["gru_0.b_0"], origin=origin)
    assert h.lod() == [[0, 1, 5, 7]]
    np.testing.assert_allclose(h.numpy(), want, atol=1e-5)


def test_dynamic_lstm_size_must_be_a_multiple_of_four():
    main, startup, x = _program_with_data(1, 6)
    with pir.program_guard(main, startup), pytest.raises(ValueError, match="size must be 4 \\* D"):
        pir.layers.dynamic_lstm(x, 6)


# --- append_backward through the layers -------------------------------------------------------


@pytest.mark.parametrize("layer", ["lstm", "gru"])
def test_append_backward_through_the_layers_matches_finite_differences(layer):
    """Only Hidden reaches the loss: the LSTM's Cell@GRAD comes from append_backward's zeros."""
    lengths, width = [3, 1, 2], 8 if layer == "lstm" else 6
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = 3
    with pir.program_guard(main, startup):
        x = pir.layers.data("x", [-1, width], dtype="float64", lod_level=1)
        if layer == "lstm":
            h, _cell = pir.layers.dynamic_lstm(x, 8, is_reverse=True, dtype="float64")
        else:
            h = pir.layers.dynamic_gru(x, 2, origin_mode=True)
        loss = pir.layers.mean(pir.layers.square(h))
        params_grads = pir.append_backward(loss)
    scope, exe = pir.Scope(), pir.Executor()
    exe.run(startup, scope=scope)
    rng = np.random.RandomState(4)
    feed = {"x": lod(rng.uniform(-1, 1, (sum(lengths), width)), lengths)}
    for param, _ in params_grads:  # a non-zero bias, so that its gradient is exercised
        value = scope.find_var(param.name).get_tensor().numpy()
        value += rng.uniform(-0.3, 0.3, value.shape)
    grads = exe.run(main, feed=feed, fetch_list=[g for _, g in params_grads], scope=scope)
    assert sorted(p.name for p, _ in params_grads) == [f"{layer}_0.b_0", f"{layer}_0.w_0"]
    for (param, _), grad in zip(params_grads, grads, strict=True):
        value = scope.find_var(param.name).get_tensor().numpy()
        numeric = np.zeros_like(value)
        for j in range(value.size):
            orig = value.flat[j]
            totals = []
            for step in (1e-6, -1e-6):
                value.flat[j] = orig + step
                totals.append(float(exe.run(main, feed=feed, fetch_list=[loss],
                                            scope=scope)[0][0]))
            value.flat[j] = orig
            numeric.flat[j] = (totals[0] - totals[1]) / 2e-6
        np.testing.assert_allclose(grad, numeric, rtol=1e-4, atol=1e-8, err_msg=param.name)


# --- the example -------------------------------------------------------------------------------


def test_sentiment_lstm_example_learns_negation():
    path = Path(__file__).resolve().parents[3] / "examples" / "sentiment_lstm.py"
    spec = importlib.util.spec_from_file_location("example_sentiment_lstm", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    result = example.train(epochs=4, num_train=1024, num_test=128, verbose=False)
    losses = result["losses"]
    assert np.mean(losses[:8]) > 0.6  # about ln 2: the classes are balanced
    assert np.mean(losses[-8:]) < 0.3 * np.mean(losses[:8])
    assert result["accuracy_before"] < 0.7 and result["accuracy"] > 0.9

"""RNNs of a length known only at run time (layers/control_flow/time_loop.py): rnn(),
StaticRNN and dynamic_decode lowered to while / while_grad. The unrolled build of the same
program (time dim known) is one truth, central finite differences and numpy the others."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.core.errors import InvalidProgramError

B, T, D, H = 3, 4, 2, 3


def _ops(program) -> set[str]:
    return {op.type for block in program.blocks for op in block.ops}


def _rnn_program(cell_kind, known, *, masked, is_reverse, time_major, initial, dtype):
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = 7
    with pir.program_guard(main, startup):
        t = T if known else -1
        x = layers.data("x", [t, -1, D] if time_major else [-1, t, D], dtype=dtype,
                        append_batch_size=False)
        x.stop_gradient = False
        lens = layers.data("len", [-1], dtype="int32", append_batch_size=False)
        attr = {"param_attr": pir.ParamAttr(name="w"), "bias_attr": pir.ParamAttr(name="b"),
                "dtype": dtype}
        cell = layers.GRUCell(H, **attr) if cell_kind == "gru" else \
            layers.LSTMCell(H, forget_bias=0.5, **attr)
        states = None
        if initial:
            h0 = layers.data("h0", [-1, H], dtype=dtype, append_batch_size=False)
            h0.stop_gradient = False
            states = h0 if cell_kind == "gru" else [h0, layers.scale(h0, 0.5)]
        out, final = layers.rnn(cell, x, initial_states=states,
                                sequence_length=lens if masked else None,
                                time_major=time_major, is_reverse=is_reverse)
        finals = final if isinstance(final, list) else [final]
        # weights make every output position and state matter differently
        weights = layers.cast(layers.assign(np.random.RandomState(3).uniform(
            -1, 1, (T, B, H) if time_major else (B, T, H)).astype(np.float32)), dtype)
        loss = layers.reduce_sum(out * weights)
        for k, f in enumerate(finals):
            loss = loss + layers.reduce_sum(f) * (k + 2.0)
    return main, startup, out, finals, loss


def _feed(time_major, dtype, initial):
    rng = np.random.RandomState(11)
    x = rng.uniform(-1, 1, (T, B, D) if time_major else (B, T, D)).astype(dtype)
    feed = {"x": x, "len": np.array([4, 1, 3], np.int32)}
    if initial:
        feed["h0"] = rng.uniform(-1, 1, (B, H)).astype(dtype)
    return feed


RNN_CASES = [  # cell, masked, is_reverse, time_major, initial states
    ("gru", False, False, False, False),
    ("gru", True, False, False, True),
    ("gru", True, True, True, False),
    ("lstm", False, True, False, True),
    ("lstm", True, False, True, True),
    ("lstm", True, True, False, False),
]


@pytest.mark.parametrize("cell, masked, is_reverse, time_major, initial", RNN_CASES)
def test_rnn_of_unknown_length_equals_the_unrolled_rnn(cell, masked, is_reverse, time_major,
                                                       initial):
    results = []
    for known in (True, False):
        main, startup, out, finals, loss = _rnn_program(
            cell, known, masked=masked, is_reverse=is_reverse, time_major=time_major,
            initial=initial, dtype="float32")
        assert ("while" in _ops(main)) is not known
        grads = dict((p.name, g.name) for p, g in pir.append_backward(loss))
        assert ("while_grad" in _ops(main)) is not known
        fetch = [out, *finals, "x@GRAD", grads["w_gate_w"], grads["b_gate_b"]]
        if initial:
            fetch.append("h0@GRAD")
        exe, scope = pir.Executor(), pir.Scope()
        exe.run(startup, scope=scope)
        results.append(exe.run(main, feed=_feed(time_major, np.float32, initial), fetch_list=fetch,
                               scope=scope))
    unrolled, looped = results
    assert looped[0].shape == ((T, B, H) if time_major else (B, T, H))
    for want, got in zip(unrolled, looped, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def check_finite_differences(main, startup, loss, feed, feeds, param, eps=1e-6):
    """The loop's gradients of the feeds `feeds` and of (every fifth entry of) the
    parameter `param` against central differences of the loss, in float64."""
    grads = dict((p.name, g.name) for p, g in pir.append_backward(loss))
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    analytic = exe.run(main, feed=feed, fetch_list=[f"{n}@GRAD" for n in feeds] +
                       [grads[param]], scope=scope)
    forward = main.clone(for_test=True)

    def loss_at(values):
        (v,) = exe.run(forward, feed={**feed, **values}, fetch_list=[loss], scope=scope)
        return float(np.asarray(v).sum())

    for name, got in zip(feeds, analytic, strict=False):
        numeric = np.zeros_like(feed[name])
        for idx in np.ndindex(feed[name].shape):
            plus, minus = feed[name].copy(), feed[name].copy()
            plus[idx] += eps
            minus[idx] -= eps
            numeric[idx] = (loss_at({name: plus}) - loss_at({name: minus})) / (2 * eps)
        np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-7)
    holder = scope.find_var(param)
    base = np.array(holder.value)
    for idx in list(np.ndindex(base.shape))[::5]:
        values = []
        for delta in (eps, -eps):
            moved = base.copy()
            moved[idx] += delta
            holder.value = pir.LoDTensor(moved)
            values.append(loss_at({}))
        numeric = (values[0] - values[1]) / (2 * eps)
        np.testing.assert_allclose(analytic[-1][idx], numeric, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("cell, masked, is_reverse, time_major, initial",
                         [RNN_CASES[2], RNN_CASES[4]])
def test_rnn_loop_gradients_match_finite_differences(cell, masked, is_reverse, time_major,
                                                     initial):
    main, startup, _, _, loss = _rnn_program(cell, False, masked=masked, is_reverse=is_reverse,
                                             time_major=time_major, initial=initial,
                                             dtype="float64")
    check_finite_differences(main, startup, loss, _feed(time_major, np.float64, initial),
                             ["x", "h0"] if initial else ["x"], "w_gate_w")


def _static_rnn_program(known: bool, dtype="float32"):
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = 5
    with pir.program_guard(main, startup):
        x = layers.data("x", [T if known else -1, -1, D], dtype=dtype, append_batch_size=False)
        y = layers.data("y", [-1, -1, 1], dtype=dtype,
                        append_batch_size=False)  # x.shape[0] decides
        c0 = layers.data("c0", [-1, H], dtype=dtype, append_batch_size=False)
        x.stop_gradient = c0.stop_gradient = False
        rnn = layers.StaticRNN()
        with rnn.step():
            word, extra = rnn.step_input(x), rnn.step_input(y)
            prev = rnn.memory(shape=[-1, H], batch_ref=word, init_value=0.5)
            cell = rnn.memory(init=c0)
            hidden = layers.fc([word, prev], H, act="tanh",
                               param_attr=[pir.ParamAttr(name="wx"), pir.ParamAttr(name="wh")],
                               bias_attr=pir.ParamAttr(name="bh"))
            new_cell = layers.elementwise_mul(cell, layers.sigmoid(extra)) + hidden
            rnn.update_memory(prev, hidden)
            rnn.update_memory(cell, new_cell)
            rnn.step_output(hidden)
            rnn.step_output(new_cell)
        out, cells = rnn()
        loss = layers.mean(out) + layers.reduce_sum(layers.square(cells)) * 0.01
    return main, startup, out, cells, loss


def _static_rnn_numpy(feed, wx, wh, bh):
    state, cell = np.full((B, H), 0.5), feed["c0"].astype(np.float64)
    outs, cells = [], []
    for step in range(T):
        state = np.tanh(feed["x"][step] @ wx + state @ wh + bh)
        cell = cell / (1 + np.exp(-feed["y"][step])) + state
        outs.append(state)
        cells.append(cell)
    return np.stack(outs), np.stack(cells)


def test_static_rnn_of_unknown_length_equals_numpy_and_the_unrolled_rnn_and_trains():
    rng = np.random.RandomState(2)
    feed = {"x": rng.uniform(-1, 1, (T, B, D)).astype(np.float32),
            "y": rng.uniform(-1, 1, (T, B, 1)).astype(np.float32),
            "c0": rng.uniform(-1, 1, (B, H)).astype(np.float32)}
    results = []
    for known in (True, False):
        main, startup, out, cells, loss = _static_rnn_program(known)
        grads = dict((p.name, g.name) for p, g in pir.append_backward(loss))
        assert ("while_grad" in _ops(main)) is not known
        exe, scope = pir.Executor(), pir.Scope()
        exe.run(startup, scope=scope)
        params = [np.array(scope.find_var(n).get_tensor()).copy() for n in ("wx", "wh", "bh")]
        got = exe.run(main, feed=feed, fetch_list=[out, cells, "x@GRAD", "c0@GRAD",
                                                   grads["wx"], grads["wh"], grads["bh"]],
                      scope=scope)
        want_out, want_cells = _static_rnn_numpy(feed, *params)
        np.testing.assert_allclose(got[0], want_out, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got[1], want_cells, rtol=1e-5, atol=1e-5)
        results.append(got)
    for want, got in zip(*results, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    # the loop trains: plain SGD on the looped program lowers its loss
    main, startup, _, _, loss = _static_rnn_program(False)
    with pir.program_guard(main, startup):
        pir.optimizer.SGD(0.3).minimize(loss)
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    losses = [float(np.asarray(exe.run(main, feed=feed, fetch_list=[loss],
                                       scope=scope)[0]).reshape(-1)[0]) for _ in range(6)]
    assert losses[-1] < losses[0] - 0.01


def test_static_rnn_loop_gradients_match_finite_differences():
    main, startup, _, _, loss = _static_rnn_program(False, "float64")
    rng = np.random.RandomState(6)
    feed = {"x": rng.uniform(-1, 1, (T, B, D)), "y": rng.uniform(-1, 1, (T, B, 1)),
            "c0": rng.uniform(-1, 1, (B, H))}
    check_finite_differences(main, startup, loss, feed, ["x", "c0"], "wh")


def _teacher_forced(use_decoder: bool):
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = layers.data("x", [-1, -1, D], append_batch_size=False)
        h0 = layers.data("h0", [-1, H], append_batch_size=False)
        lens = layers.data("len", [-1], dtype="int64", append_batch_size=False)
        x.stop_gradient = h0.stop_gradient = False
        cell = layers.GRUCell(H, param_attr=pir.ParamAttr(name="w"),
                              bias_attr=pir.ParamAttr(name="b"))
        if use_decoder:
            dec = layers.BasicDecoder(cell, layers.TrainingHelper(x, lens))
            (out, _), _ = layers.dynamic_decode(dec, inits=h0)
        else:
            out, _ = layers.rnn(cell, x, initial_states=h0)
        weights = layers.assign(np.random.RandomState(3).uniform(-1, 1, (B, T, H))
                                .astype(np.float32))
        loss = layers.reduce_sum(out * weights)
        grads = dict((p.name, g.name) for p, g in pir.append_backward(loss))
    return main, startup, [out, "x@GRAD", "h0@GRAD", grads["w_gate_w"], grads["b_candidate_b"]]


def test_dynamic_decode_with_a_training_helper_trains_like_rnn():
    """Teacher forcing over full-length sequences is rnn() over the same inputs: the
    decoder's While gives rnn's outputs and gradients."""
    rng = np.random.RandomState(4)
    feed = {"x": rng.uniform(-1, 1, (B, T, D)).astype(np.float32),
            "h0": rng.uniform(-1, 1, (B, H)).astype(np.float32),
            "len": np.full(B, T, np.int64)}
    exe = pir.Executor()
    results, params = [], None
    for use_decoder in (False, True):
        main, startup, fetch = _teacher_forced(use_decoder)
        scope = pir.Scope()
        exe.run(startup, scope=scope)
        if params is None:
            params = {n: np.array(scope.find_var(n).get_tensor()).copy()
                      for n in ("w_gate_w", "w_candidate_w", "b_gate_b", "b_candidate_b")}
        for n, v in params.items():
            scope.find_var(n).value = pir.LoDTensor(v)
        results.append(exe.run(main, feed=feed, fetch_list=fetch, scope=scope))
    for want, got in zip(*results, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


class _AttentionStack(layers.RNNCell):
    """The shape of the seq2seq models' decoder: two LSTMCells (nested states), attention
    over an encoder output passed as a keyword argument, the attended vector fed back."""

    def __init__(self):
        self.cells = [layers.LSTMCell(H, param_attr=pir.ParamAttr(name=f"l{k}"),
                                      bias_attr=pir.ParamAttr(name=f"lb{k}"))
                      for k in range(2)]

    def call(self, step_input, states, enc_output):
        lstm_states, feed = states
        x = layers.concat([step_input, feed], 1)
        new_states = []
        for cell, state in zip(self.cells, lstm_states, strict=True):
            x, new = cell(x, state)
            new_states.append(new)
        scores = layers.matmul(layers.unsqueeze(x, [1]), enc_output, transpose_y=True)
        attended = layers.squeeze(layers.matmul(layers.softmax(scores), enc_output), [1])
        return attended + x, [new_states, attended]

    @property
    def state_shape(self):
        return [[cell.state_shape for cell in self.cells], [H]]


def test_a_seq2seq_shaped_decoder_cell_loops_like_it_unrolls():
    rng = np.random.RandomState(8)
    feed = {"x": rng.uniform(-1, 1, (B, T, D)).astype(np.float32),
            "enc": rng.uniform(-1, 1, (B, 5, H)).astype(np.float32),
            "len": np.array([2, 4, 3], np.int64)}
    results = []
    for known in (True, False):
        main, startup = pir.Program(), pir.Program()
        main.random_seed = startup.random_seed = 9
        with pir.program_guard(main, startup):
            x = layers.data("x", [-1, T if known else -1, D], append_batch_size=False)
            enc = layers.data("enc", [-1, -1, H], append_batch_size=False)
            lens = layers.data("len", [-1], dtype="int64", append_batch_size=False)
            x.stop_gradient = enc.stop_gradient = False
            cell = _AttentionStack()
            # the default states follow the nested state_shape
            out, final = layers.rnn(cell, x, sequence_length=lens, enc_output=enc)
            loss = layers.reduce_sum(layers.square(out)) + layers.reduce_sum(final[0][1][1])
            grads = dict((p.name, g.name) for p, g in pir.append_backward(loss))
        exe, scope = pir.Executor(), pir.Scope()
        exe.run(startup, scope=scope)
        results.append(exe.run(main, feed=feed, scope=scope,
                               fetch_list=[out, final[0][1][1], final[1], "x@GRAD",
                                           "enc@GRAD", grads["l1_gate_w"]]))
    for want, got in zip(*results, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_tile_beam_merge_with_batch_repeats_rows_of_unknown_dims():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        enc = layers.data("enc", [-1, -1, 2], append_batch_size=False)
        tiled = layers.BeamSearchDecoder.tile_beam_merge_with_batch(enc, 3)
    assert list(tiled.shape) == [-1, -1, 2]
    v = np.arange(2 * 4 * 2, dtype=np.float32).reshape(2, 4, 2)
    (got,) = pir.Executor().run(main, feed={"enc": v}, fetch_list=[tiled])
    np.testing.assert_array_equal(got, np.repeat(v, 3, axis=0))


class _ForgetfulCell(layers.RNNCell):
    """Given [h, c], gives back h alone."""

    def call(self, inputs, states):
        return inputs, states[0]

    @property
    def state_shape(self):
        return [[D], [D]]


@pytest.mark.parametrize("known", [True, False])
def test_a_step_giving_back_other_states_is_refused(known):
    with pir.program_guard(pir.Program(), pir.Program()):
        x = layers.data("x", [-1, T if known else -1, D], append_batch_size=False)
        with pytest.raises(InvalidProgramError,
                           match=r"the new states of _ForgetfulCell must have the structure of "
                                 r"what the step was given, \['Variable', 'Variable'\], but got "
                                 r"Variable"):
            layers.rnn(_ForgetfulCell(), x)

"""GRUCell / LSTMCell / rnn against numpy, and dynamic_decode with BasicDecoder helpers and
BeamSearchDecoder against brute-force search on a tiny vocabulary."""

import itertools

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.core.errors import InvalidProgramError

rng = np.random.RandomState(53)


def sig(x):
    return 1 / (1 + np.exp(-x))


def _fetch_params(main, scope):
    return {p.name: np.array(scope.find_var(p.name).get_tensor()).copy()
            for p in main.global_block().all_parameters()}


@pytest.mark.parametrize("cell_kind", ["gru", "lstm"])
def test_rnn_with_cells_matches_numpy(cell_kind):
    b, t, d, h = 3, 4, 2, 5
    x = rng.uniform(-1, 1, (b, t, d)).astype(np.float32)
    lens = np.array([4, 2, 3], np.int64)
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        xv = layers.data("x", [-1, t, d])
        lv = layers.data("len", [-1], dtype="int64")
        cell = layers.GRUCell(h) if cell_kind == "gru" else layers.LSTMCell(h, forget_bias=0.5)
        out, final = layers.rnn(cell, xv, sequence_length=lv)
        loss = layers.mean(out)
        pir.optimizer.SGD(0.1).minimize(loss)
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    params = _fetch_params(main, scope)
    fetch = [out] + (final if isinstance(final, list) else [final])
    got = exe.run(main, feed={"x": x, "len": lens}, fetch_list=fetch, scope=scope)

    def p(key):
        return next(v for k, v in params.items() if f".{key}" in k)

    hs = np.zeros((b, h))
    cs = np.zeros((b, h))
    outs = []
    for step in range(t):
        xt = x[:, step]
        if cell_kind == "gru":
            g = sig(np.concatenate([xt, hs], 1) @ p("gate_w") + p("gate_b"))
            r, u = g[:, :h], g[:, h:]
            c = np.tanh(np.concatenate([xt, r * hs], 1) @ p("candidate_w") + p("candidate_b"))
            nh, nc = u * hs + (1 - u) * c, cs
        else:
            g = np.concatenate([xt, hs], 1) @ p("gate_w") + p("gate_b")
            i, j, f, o = (g[:, k * h:(k + 1) * h] for k in range(4))
            nc = cs * sig(f + 0.5) + sig(i) * np.tanh(j)
            nh = np.tanh(nc) * sig(o)
        outs.append(nh)
        alive = (step < lens)[:, None]
        hs, cs = np.where(alive, nh, hs), np.where(alive, nc, cs)
    np.testing.assert_allclose(got[0], np.stack(outs, 1), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1], hs, rtol=1e-4, atol=1e-5)
    if cell_kind == "lstm":
        np.testing.assert_allclose(got[2], cs, rtol=1e-4, atol=1e-5)
    losses = [float(np.asarray(exe.run(main, feed={"x": x, "len": lens}, fetch_list=[loss],
                                       scope=scope)[0]).reshape(-1)[0]) for _ in range(4)]
    assert losses[-1] < losses[0]


def test_rnn_needs_a_known_time_dim():
    with pir.program_guard(pir.Program(), pir.Program()):
        x = layers.data("x", [-1, -1, 3])
        with pytest.raises(InvalidProgramError, match="time dim of x must be known"):
            layers.rnn(layers.GRUCell(2), x)


class _TableCell(layers.RNNCell):
    """A cell whose logits depend only on the previous token: logits = table[token]."""

    def __init__(self, table):
        self.table = table

    def call(self, inputs, states):
        return layers.gather(self.table, inputs), states

    @property
    def state_shape(self):
        return [1]


def _decode_program(build):
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        outs = build()
    exe = pir.Executor()
    exe.run(startup)
    return exe.run(main, fetch_list=list(outs))


def _log_softmax(v):
    return v - np.log(np.exp(v - v.max()).sum()) - v.max()


def test_beam_search_decoder_finds_the_best_sequences():
    vocab, beam, steps, end = 4, 3, 3, 3
    table = rng.uniform(-2, 2, (vocab, vocab)).astype(np.float32)
    batch = 2

    def build():
        from paddle_ir.layers.tensor import assign_value

        tab = assign_value(table)
        cell = _TableCell(tab)
        dec = layers.BeamSearchDecoder(cell, start_token=0, end_token=end, beam_size=beam)
        init = layers.fill_constant([batch, 1], "float32", 0.0)
        (ids, states, lengths) = layers.dynamic_decode(dec, inits=init, max_step_num=steps,
                                                       return_length=True)
        return [ids, states[1]]

    ids, scores = _decode_program(build)
    assert ids.shape == (batch, steps, beam)
    # brute force: every token sequence, finished ones extended only by end at no cost
    lp = np.stack([_log_softmax(table[k].astype(np.float64)) for k in range(vocab)])
    best = []
    for seq in itertools.product(range(vocab), repeat=steps):
        score, prev, done = 0.0, 0, False
        for tok in seq:
            if done:
                if tok != end:
                    score = -np.inf
                    break
                continue
            score += lp[prev, tok]
            prev, done = tok, tok == end
        if np.isfinite(score):
            best.append((score, seq))
    best.sort(key=lambda s: -s[0])
    want_scores = [s for s, _ in best[:beam]]
    for bi in range(batch):
        np.testing.assert_allclose(sorted(scores[bi], reverse=True), want_scores, rtol=1e-4)
        got_seqs = {tuple(ids[bi, :, k]) for k in range(beam)}
        assert got_seqs == {seq for _, seq in best[:beam]}


def test_greedy_and_training_helpers_with_basic_decoder():
    vocab, steps = 5, 4
    table = rng.uniform(-2, 2, (vocab, vocab)).astype(np.float32)

    def build():
        from paddle_ir.layers.tensor import assign_value

        tab = assign_value(table)
        start = layers.fill_constant([2], "int64", 1)
        helper = layers.GreedyEmbeddingHelper(lambda ids: ids, start, end_token=4)
        dec = layers.BasicDecoder(_TableCell(tab), helper)
        init = layers.fill_constant([2, 1], "float32", 0.0)
        (logits, sample_ids), _ = layers.dynamic_decode(dec, inits=init, max_step_num=steps)
        teacher = assign_value(np.array([[2, 3, 1, 0], [0, 0, 1, 2]], np.int64))
        th = layers.TrainingHelper(teacher, assign_value(np.array([4, 2], np.int64)))
        tdec = layers.BasicDecoder(_TableCell(tab), th)
        (tlogits, _), _, tlen = layers.dynamic_decode(tdec, inits=init, max_step_num=3,
                                                      return_length=True)
        return [sample_ids, tlogits, tlen]

    sample_ids, tlogits, tlen = _decode_program(build)
    prev, want = 1, []
    for _ in range(steps):
        prev = int(np.argmax(table[prev]))
        want.append(prev)
    np.testing.assert_array_equal(sample_ids[0], want)
    np.testing.assert_allclose(tlogits[0], table[[2, 3, 1]])
    np.testing.assert_array_equal(tlen, [3, 2])

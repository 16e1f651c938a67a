"""dynamic_lstmp and lstm against per-step numpy loops."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.core.lod_tensor import LoDTensor

rng = np.random.RandomState(67)


def sig(x):
    return 1 / (1 + np.exp(-x))


def _params(main, scope):
    return [np.array(scope.find_var(p.name).get_tensor()).copy()
            for p in main.global_block().all_parameters()]


@pytest.mark.parametrize("is_reverse", [False, True])
def test_dynamic_lstmp(is_reverse):
    d, p = 3, 2
    lengths = [3, 1, 2]
    x = rng.uniform(-1, 1, (6, 4 * d)).astype(np.float32)
    lx = LoDTensor(x)
    lx.set_recursive_sequence_lengths([lengths])
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        xv = layers.data("x", [-1, 4 * d], lod_level=1)
        proj, cell = layers.dynamic_lstmp(xv, 4 * d, p, is_reverse=is_reverse, cell_clip=5.0)
        loss = layers.mean(proj)
        pir.optimizer.SGD(0.5).minimize(loss)
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    w, pw, b = _params(main, scope)
    pv, cv = exe.run(main, feed={"x": lx}, fetch_list=[proj, cell], scope=scope,
                     return_numpy=False)
    want_r, want_c = np.zeros((6, p)), np.zeros((6, d))
    start = 0
    for n in lengths:
        r, c = np.zeros(p), np.zeros(d)
        order = range(start + n - 1, start - 1, -1) if is_reverse else range(start, start + n)
        for row in order:
            g = x[row] + r @ w + b[0, :4 * d]
            gc, gi, gf, go = (g[k * d:(k + 1) * d] for k in range(4))
            i = sig(gi + b[0, 4 * d:5 * d] * c)
            f = sig(gf + b[0, 5 * d:6 * d] * c)
            c = np.clip(f * c + i * np.tanh(gc), -5, 5)
            h = sig(go + b[0, 6 * d:] * c) * np.tanh(c)
            r = np.tanh(h @ pw)
            want_r[row], want_c[row] = r, c
        start += n
    np.testing.assert_allclose(pv.numpy(), want_r, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(cv.numpy(), want_c, rtol=1e-4, atol=1e-5)
    assert pv.recursive_sequence_lengths() == [lengths]
    losses = [float(np.asarray(exe.run(main, feed={"x": lx}, fetch_list=[loss],
                                       scope=scope)[0]).reshape(-1)[0]) for _ in range(3)]
    assert losses[-1] < losses[0]


def test_cudnn_style_lstm_two_layers_bidirectional():
    t, b, d, h, layers_n = 3, 2, 4, 3, 2
    x = rng.uniform(-1, 1, (t, b, d)).astype(np.float32)
    h0 = rng.uniform(-1, 1, (layers_n * 2, b, h)).astype(np.float32)
    c0 = rng.uniform(-1, 1, (layers_n * 2, b, h)).astype(np.float32)
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        xv = layers.data("x", [t, -1, d])
        hv = layers.data("h0", [layers_n * 2, -1, h])
        cv = layers.data("c0", [layers_n * 2, -1, h])
        out, last_h, last_c = layers.lstm(xv, hv, cv, t, h, layers_n, is_bidirec=True)
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    params = _params(main, scope)
    got = exe.run(main, feed={"x": x, "h0": h0, "c0": c0}, fetch_list=[out, last_h, last_c],
                  scope=scope)
    inp = x.astype(np.float64)
    lh, lc = [], []
    k = 0
    for _ in range(layers_n):
        outs = []
        for direction in range(2):
            w, u, bias = params[3 * k:3 * k + 3]
            hs, cs = h0[k].astype(np.float64), c0[k].astype(np.float64)
            seq = [None] * t
            for step in (range(t - 1, -1, -1) if direction else range(t)):
                g = inp[step] @ w + hs @ u + bias
                i, f, gg, o = (g[:, q * h:(q + 1) * h] for q in range(4))
                cs = sig(f) * cs + sig(i) * np.tanh(gg)
                hs = sig(o) * np.tanh(cs)
                seq[step] = hs
            outs.append(np.stack(seq))
            lh.append(hs)
            lc.append(cs)
            k += 1
        inp = np.concatenate(outs, axis=2)
    np.testing.assert_allclose(got[0], inp, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1], np.stack(lh), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[2], np.stack(lc), rtol=1e-4, atol=1e-5)

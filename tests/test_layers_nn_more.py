"""The nn_more layers in programs: parameters, shapes, and values against numpy."""

import numpy as np

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.core.lod_tensor import LoDTensor

rng = np.random.RandomState(43)


def _build_run(build, feed):
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        outs = build()
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    values = exe.run(main, feed=feed, fetch_list=list(outs), scope=scope, return_numpy=False)
    return main, scope, values


def test_parameterised_layers():
    x = rng.uniform(-1, 1, (2, 4, 3, 3)).astype(np.float32)
    v = rng.uniform(-1, 1, (2, 5)).astype(np.float32)

    def build():
        xv = layers.data("x", [-1, 4, 3, 3])
        vv = layers.data("v", [-1, 5])
        return [layers.prelu(xv, "channel"), layers.group_norm(xv, 2),
                layers.instance_norm(xv), layers.bilinear_tensor_product(vv, vv, 3),
                layers.l2_normalize(vv, axis=1), layers.lrn(xv, n=3),
                layers.maxout(xv, 2), layers.temporal_shift(xv, 2),
                layers.affine_channel(xv, layers.fill_constant([4], "float32", 2.0),
                                      layers.fill_constant([4], "float32", 1.0)),
                layers.fsp_matrix(xv, xv), layers.unfold(xv, 2),
                layers.argmin(vv, axis=1)]

    main, scope, vals = _build_run(build, {"x": x, "v": v})
    pr, gn, inn, btp, l2, lr, mo, ts, ac, fsp, unf, amin = (np.asarray(a) for a in vals)
    np.testing.assert_allclose(pr, np.where(x > 0, x, 0.25 * x), rtol=1e-6)
    g = x.reshape(2, 2, -1)
    want = ((g - g.mean(2, keepdims=True)) / np.sqrt(g.var(2, keepdims=True) + 1e-5))
    np.testing.assert_allclose(gn, want.reshape(x.shape), rtol=1e-4, atol=1e-5)
    assert inn.shape == x.shape and btp.shape == (2, 3)
    np.testing.assert_allclose(l2, v / np.sqrt((v ** 2).sum(1, keepdims=True)), rtol=1e-5)
    assert lr.shape == x.shape and mo.shape == (2, 2, 3, 3) and ts.shape == x.shape
    np.testing.assert_allclose(ac, 2 * x + 1, rtol=1e-6)
    assert fsp.shape == (2, 4, 4) and unf.shape == (2, 16, 4)
    np.testing.assert_array_equal(amin, v.argmin(1))
    params = {p.name for p in main.global_block().all_parameters()}
    assert any(n.startswith("prelu") for n in params)
    assert any(n.startswith("bilinear_tensor_product") for n in params)


def test_sequence_and_sampling_layers():
    lengths = [3, 2]
    probs = rng.uniform(0, 1, (5, 4)).astype(np.float32)
    probs[[0, 1], 2] = 5.0  # argmax 2, 2 -> merged
    probs[2, 0] = 5.0       # blank
    probs[3:, 1] = 5.0
    lp = LoDTensor(probs)
    lp.set_recursive_sequence_lengths([lengths])
    hyp = LoDTensor(np.array([[1], [2], [3], [1]], np.int64))
    hyp.set_recursive_sequence_lengths([[2, 2]])
    ref = LoDTensor(np.array([[1], [3], [3], [1], [9]], np.int64))
    ref.set_recursive_sequence_lengths([[2, 3]])

    def build():
        p = layers.data("p", [-1, 4], lod_level=1)
        h = layers.data("h", [-1, 1], dtype="int64", lod_level=1)
        r = layers.data("r", [-1, 1], dtype="int64", lod_level=1)
        dist, num = layers.edit_distance(h, r, normalized=False, ignored_tokens=[9])
        return [layers.ctc_greedy_decoder(p, blank=0), dist, num,
                layers.sampling_id(layers.softmax(p), seed=3),
                layers.uniform_random_batch_size_like(p, [-1, 2], min=0.0, max=1.0),
                layers.shard_index(h, 4, 2, 1)]

    _, _, (dec, dist, num, sid, ur, sh) = _build_run(build, {"p": lp, "h": hyp, "r": ref})
    np.testing.assert_array_equal(dec.numpy().reshape(-1), [2, 1])
    assert dec.recursive_sequence_lengths() == [[1, 1]]
    np.testing.assert_allclose(np.asarray(dist).reshape(-1), [1.0, 0.0])  # 9 erased
    assert int(np.asarray(num)[0]) == 2
    assert np.asarray(sid).shape == (5,) and np.asarray(ur).shape == (5, 2)
    np.testing.assert_array_equal(np.asarray(sh).reshape(-1), [-1, 0, 1, -1])

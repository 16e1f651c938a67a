"""The new layers in programs: each builds its op(s) with Fluid's arguments, and the run
matches numpy; composite losses are checked against their formulas."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import layers

rng = np.random.RandomState(23)


def _run(build, feed, fetch_many=False):
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        outs = build()
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    return exe.run(main, feed=feed, fetch_list=outs, scope=scope)


def _data(name, arr):
    return layers.data(name, [-1] + list(arr.shape[1:]), dtype=str(arr.dtype))


def test_indexing_layers():
    x = rng.uniform(-1, 1, (5, 3)).astype(np.float32)
    idx = np.array([[4], [1]], dtype=np.int64)
    nd = np.array([[0, 2], [4, 1]], dtype=np.int64)
    upd = rng.uniform(-1, 1, (2, 3)).astype(np.float32)

    def build():
        xv, iv, ndv, uv = _data("x", x), _data("i", idx), _data("nd", nd), _data("u", upd)
        return [layers.gather(xv, iv), layers.gather_nd(xv, ndv),
                layers.scatter(xv, iv, uv), layers.scatter_nd_add(xv, ndv, layers.gather_nd(
                    xv, ndv)), layers.scatter_nd(ndv, layers.gather_nd(xv, ndv), [5, 3]),
                layers.where(layers.greater_than(xv, layers.fill_constant([1], "float32", 0.5)))]

    g, gnd, sc, sna, snd, wh = _run(build, {"x": x, "i": idx, "nd": nd, "u": upd})
    np.testing.assert_allclose(g, x[[4, 1]])
    np.testing.assert_allclose(gnd, [x[0, 2], x[4, 1]])
    want = x.copy()
    want[[4, 1]] = upd
    np.testing.assert_allclose(sc, want)
    want = x.copy()
    want[0, 2] *= 2
    want[4, 1] *= 2
    np.testing.assert_allclose(sna, want)
    want = np.zeros((5, 3), np.float32)
    want[0, 2], want[4, 1] = x[0, 2], x[4, 1]
    np.testing.assert_allclose(snd, want)
    np.testing.assert_array_equal(wh, np.argwhere(x > 0.5))


def test_shape_layers():
    x = rng.uniform(-1, 1, (2, 4, 4, 4)).astype(np.float32)

    def build():
        xv = _data("x", x)
        return [layers.pad(xv, [0, 0, 1, 0, 0, 0, 0, 1], 9.0),
                layers.pad2d(xv, [1, 1, 0, 2], mode="edge"),
                layers.crop(xv, shape=[1, 2, 2, 2], offsets=[1, 0, 1, 2]),
                layers.crop_tensor(xv, shape=[-1, 2, -1, 1], offsets=[0, 2, 0, 3]),
                layers.strided_slice(xv, [1, 3], [0, 3], [4, 0], [2, -1]),
                layers.space_to_depth(xv, 2), layers.pixel_shuffle(xv, 2),
                layers.shuffle_channel(xv, 2), layers.shape(xv), layers.size(xv),
                layers.rank(xv), layers.reverse(xv, [1, 2])]

    (pad, pad2d, crop, cropt, ss, s2d, ps, sc, shape, size, rank, rev) = _run(build, {"x": x})
    np.testing.assert_allclose(pad, np.pad(x, [(0, 0), (1, 0), (0, 0), (0, 1)],
                                           constant_values=9.0))
    np.testing.assert_allclose(pad2d, np.pad(x, [(0, 0), (0, 0), (1, 1), (0, 2)], mode="edge"))
    np.testing.assert_allclose(crop, x[1:2, 0:2, 1:3, 2:4])
    np.testing.assert_allclose(cropt, x[:, 2:4, :, 3:4])
    np.testing.assert_allclose(ss, x[:, 0:4:2, :, 3:0:-1])
    assert s2d.shape == (2, 16, 2, 2) and ps.shape == (2, 1, 8, 8) and sc.shape == x.shape
    np.testing.assert_array_equal(shape, [2, 4, 4, 4])
    assert int(size[0]) == x.size and int(rank[0]) == 4
    np.testing.assert_allclose(rev, x[:, ::-1, ::-1])


def test_reduce_clip_and_random_layers():
    x = rng.uniform(-1, 1, (3, 4)).astype(np.float32)

    def build():
        xv = _data("x", x)
        positive = layers.greater_than(xv, layers.fill_constant([1], "float32", 0.0))
        return [layers.reduce_max(xv, dim=1), layers.reduce_min(xv, dim=[0], keep_dim=True),
                layers.reduce_prod(xv), layers.reduce_all(positive, dim=1),
                layers.reduce_any(positive), layers.clip(xv, -0.5, 0.5),
                layers.clip_by_norm(xv, 1.0),
                layers.uniform_random([2, 3], min=2.0, max=3.0, seed=1),
                layers.gaussian_random([1000], mean=5.0, std=0.5, seed=2)]

    mx, mn, prod, all_, any_, cl, cn, ur, gr = _run(build, {"x": x})
    np.testing.assert_allclose(mx, x.max(1))
    np.testing.assert_allclose(mn, x.min(0, keepdims=True))
    np.testing.assert_allclose(np.asarray(prod).reshape(-1), [x.prod()], rtol=1e-5)
    np.testing.assert_array_equal(all_, (x > 0).all(1))
    assert bool(np.asarray(any_).reshape(-1)[0]) == bool((x > 0).any())
    np.testing.assert_allclose(cl, np.clip(x, -0.5, 0.5))
    np.testing.assert_allclose(cn, x / max(np.sqrt((x.astype(np.float64) ** 2).sum()), 1.0),
                               rtol=1e-5)
    assert ur.shape == (2, 3) and ur.min() >= 2.0 and ur.max() < 3.0
    assert abs(gr.mean() - 5.0) < 0.1 and abs(gr.std() - 0.5) < 0.1


def test_tensor_layers():
    x = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    ids = np.array([3, 1, 3, 2], dtype=np.int64)

    def build():
        xv = _data("x", x)
        iv = layers.data("ids", [-1], dtype="int64")
        out, index = layers.unique(iv)
        u2 = layers.unique_with_counts(iv, dtype="int64")
        s, si = layers.argsort(xv, axis=1, descending=True)
        return [layers.range(0, 10, 3, "int64"), layers.linspace(0.0, 1.0, 3, "float32"),
                layers.diag(np.array([1.0, 2.0], np.float32)), layers.eye(2, 3),
                layers.eye(2, batch_shape=[3]),
                layers.isfinite(xv), layers.has_inf(xv), layers.has_nan(xv),
                layers.cumsum(xv, axis=1), s, si, out, index, u2[2],
                layers.label_smooth(layers.ones_like(xv), epsilon=0.2), layers.sum([xv, xv]),
                layers.create_global_var([2], 7.0, "float32", persistable=True)]

    (rg, ls, dg, ey, eyb, fin, inf, nan, cs, s, si, uo, ui, uc, lsm, sm, gv) = _run(
        build, {"x": x, "ids": ids})
    np.testing.assert_array_equal(rg, [0, 3, 6, 9])
    np.testing.assert_allclose(ls, [0.0, 0.5, 1.0])
    np.testing.assert_allclose(dg, [[1, 0], [0, 2]])
    np.testing.assert_allclose(ey, np.eye(2, 3))
    np.testing.assert_allclose(eyb, np.stack([np.eye(2)] * 3))
    assert (bool(fin[0]), bool(inf[0]), bool(nan[0])) == (True, False, False)
    np.testing.assert_allclose(cs, np.cumsum(x, 1), rtol=1e-6)
    np.testing.assert_allclose(s, -np.sort(-x, 1))
    np.testing.assert_array_equal(si, np.argsort(-x, 1, kind="stable"))
    np.testing.assert_array_equal(uo, [3, 1, 2])
    np.testing.assert_array_equal(ui, [0, 1, 0, 2])
    np.testing.assert_array_equal(uc, [2, 1, 1])
    np.testing.assert_allclose(lsm, np.full_like(x, 0.8 + 0.2 / 4))
    np.testing.assert_allclose(sm, 2 * x)
    np.testing.assert_allclose(gv, [7.0, 7.0])


def test_create_tensor_and_parameter():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        t = layers.create_tensor("int64", name="t0")
        w = layers.create_parameter([2, 3], "float32", name="my_w",
                                    default_initializer=pir.initializer.Constant(0.5))
    assert t.name == "t0" and t.dtype == np.int64
    assert isinstance(w, pir.Parameter) and w.name == "my_w" and w.shape == (2, 3)
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    np.testing.assert_allclose(np.array(scope.find_var("my_w").get_tensor()), 0.5)


def test_loss_layers_and_their_gradients_train():
    x = rng.uniform(0.1, 0.9, (6, 1)).astype(np.float32)
    y = (rng.uniform(0, 1, (6, 1)) > 0.5).astype(np.float32)

    def build():
        xv, yv = _data("x", x), _data("y", y)
        return [layers.huber_loss(xv, yv, 0.3), layers.log_loss(xv, yv),
                layers.smooth_l1(xv, yv), layers.mse_loss(xv, yv),
                layers.kldiv_loss(layers.log(xv), yv, "sum"),
                layers.margin_rank_loss(yv * 2.0 - 1.0, xv, yv),
                layers.rank_loss(yv, xv, yv * 0.5)]

    hub, ll, sl1, mse, kl, mr, rk = _run(build, {"x": x, "y": y})
    r = y - x
    np.testing.assert_allclose(hub, np.where(np.abs(r) <= 0.3, 0.5 * r * r,
                                             0.3 * (np.abs(r) - 0.15)), rtol=1e-5)
    np.testing.assert_allclose(ll, -y * np.log(x + 1e-4) - (1 - y) * np.log(1 - x + 1e-4),
                               rtol=1e-5)
    d = np.abs(x - y)
    np.testing.assert_allclose(sl1, np.where(d < 1, 0.5 * d * d, d - 0.5), rtol=1e-5)
    assert float(np.asarray(mse).reshape(-1)[0]) == pytest.approx(float(((x - y) ** 2).mean()),
                                                                  rel=1e-5)
    kl_want = float(np.where(y > 0, y * (np.log(np.where(y > 0, y, 1)) - np.log(x)), 0).sum())
    assert float(np.asarray(kl).reshape(-1)[0]) == pytest.approx(kl_want, rel=1e-5)
    np.testing.assert_allclose(mr, np.maximum(0, -(2 * y - 1) * (x - y) + 0.1), rtol=1e-5)
    np.testing.assert_allclose(rk, np.log1p(np.exp(x - 0.5 * y)) - y * (x - 0.5 * y),
                               rtol=1e-5)


def test_npair_and_dice_loss_match_their_formulas():
    a = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    p = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    lab = np.array([1, 2, 1, 0], dtype=np.int64)
    probs = rng.uniform(0, 1, (4, 3)).astype(np.float32)
    cls = np.array([[0], [2], [1], [2]], dtype=np.int64)

    def build():
        av, pv = _data("a", a), _data("p", p)
        lv = layers.data("lab", [-1], dtype="int64")
        return [layers.npair_loss(av, pv, lv, l2_reg=0.01),
                layers.dice_loss(_data("probs", probs), _data("cls", cls))]

    npair, dice = _run(build, {"a": a, "p": p, "lab": lab, "probs": probs, "cls": cls})
    same = (lab[:, None] == lab[None, :]).astype(np.float64)
    same /= same.sum(1, keepdims=True)
    sim = a.astype(np.float64) @ p.T
    logsm = sim - np.log(np.exp(sim).sum(1, keepdims=True))
    ce = -(same * logsm).sum(1, keepdims=True)
    want = (ce * same).sum(0).mean() + 0.25 * 0.01 * ((a ** 2).sum(1).mean() +
                                                      (p ** 2).sum(1).mean())
    assert float(np.asarray(npair).reshape(-1)[0]) == pytest.approx(want, rel=1e-5)
    onehot = np.eye(3)[cls[:, 0]]
    score = 1 - 2 * (probs * onehot).sum(1) / (probs.sum(1) + onehot.sum(1) + 1e-5)
    assert float(np.asarray(dice).reshape(-1)[0]) == pytest.approx(score.mean(), rel=1e-5)


def test_merge_and_get_tensor_layers_on_a_sparse_gradient():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        ids = layers.data("ids", [-1, 1], dtype="int64")
        emb = layers.embedding(ids, [5, 2], is_sparse=True)
        loss = layers.mean(emb)
        pir.append_backward(loss)
        grad = main.global_block().var([n for n in main.global_block().vars
                                        if n.endswith(".w_0@GRAD")][0])
        merged = layers.merge_selected_rows(grad)
        values = layers.get_tensor_from_selected_rows(merged)
    assert merged.type == pir.VarType.SELECTED_ROWS
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    m, v = exe.run(main, feed={"ids": np.array([[3], [0], [3]], np.int64)},
                   fetch_list=[merged, values], scope=scope, return_numpy=False)
    np.testing.assert_array_equal(m.rows, [0, 3])
    np.testing.assert_allclose(np.asarray(v), np.array([[1, 1], [2, 2]]) / 6.0, rtol=1e-6)

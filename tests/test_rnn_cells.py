"""gru_unit, lstm_unit, expand, unstack and cos_sim against numpy written from the formulas,
finite-difference gradients, and their layers (zeros, ones, zeros_like, sums,
square_error_cost among them)."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.core.errors import ShapeInferenceError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(5)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def gru_reference(x, h, w, b, origin_mode):
    d = h.shape[1]
    w_gate = w.reshape(-1)[:2 * d * d].reshape(d, 2 * d)     # Paddle's flat-memory split
    w_cand = w.reshape(-1)[2 * d * d:].reshape(d, d)
    pre = x + b
    u = sigmoid(pre[:, :d] + h @ w_gate[:, :d])
    r = sigmoid(pre[:, d:2 * d] + h @ w_gate[:, d:])
    c = np.tanh(pre[:, 2 * d:] + (r * h) @ w_cand)
    new = u * h + (1 - u) * c if origin_mode else (1 - u) * h + u * c
    return np.concatenate([u, r, c], 1), r * h, new


@pytest.mark.parametrize("origin_mode", [False, True])
def test_gru_unit_matches_the_formulas_and_its_gradients(origin_mode):
    n, d = 4, 3
    x, h = rng.uniform(-1, 1, (n, 3 * d)), rng.uniform(-1, 1, (n, d))
    w, b = rng.uniform(-1, 1, (d, 3 * d)), rng.uniform(-1, 1, (1, 3 * d))
    gate, reset, new = gru_reference(x, h, w, b, origin_mode)
    inputs = {"Input": x, "HiddenPrev": h, "Weight": w, "Bias": b}
    check_op("gru_unit", inputs, {"origin_mode": origin_mode},
             {"Gate": gate, "ResetHiddenPrev": reset, "Hidden": new})
    check_grad("gru_unit", inputs, {"origin_mode": origin_mode},
               wrt=("Input", "HiddenPrev", "Weight", "Bias"), out_slot="Hidden")


def test_gru_unit_layer_is_one_step_of_dynamic_gru():
    d = 3
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = layers.data("x", [-1, 3 * d], lod_level=1)
        h0 = layers.data("h0", [-1, d])
        seq = layers.dynamic_gru(x, size=d, h_0=h0, param_attr=pir.ParamAttr(name="w"),
                                 bias_attr=pir.ParamAttr(name="b"))
        step, _, _ = layers.gru_unit(x, h0, size=3 * d, param_attr=pir.ParamAttr(name="w"),
                                     bias_attr=pir.ParamAttr(name="b"))
    scope = pir.Scope()
    exe = pir.Executor()
    exe.run(startup, scope=scope)
    scope.find_var("b").get_tensor().set(rng.uniform(-1, 1, (1, 3 * d)).astype(np.float32))
    xs = rng.uniform(-1, 1, (5, 3 * d)).astype(np.float32)
    hs = rng.uniform(-1, 1, (5, d)).astype(np.float32)
    a, b = exe.run(main, feed={"x": pir.create_lod_tensor(xs, [[1] * 5]), "h0": hs},
                   fetch_list=[seq, step], scope=scope)
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_gru_unit_rejects_bad_shapes():
    with pytest.raises(ShapeInferenceError, match="3 times of frame_size"):
        check_op("gru_unit", {"Input": np.zeros((2, 5)), "HiddenPrev": np.zeros((2, 2)),
                              "Weight": np.zeros((2, 6))})
    with pytest.raises(Exception, match="activation must be one of"):
        with pir.program_guard(pir.Program(), pir.Program()):
            layers.gru_unit(layers.data("a", [-1, 6]), layers.data("b", [-1, 2]), 6,
                            activation="gelu")


def test_lstm_unit_matches_the_formulas_and_its_gradients():
    n, d = 3, 2
    x, c_prev = rng.uniform(-1, 1, (n, 4 * d)), rng.uniform(-1, 1, (n, d))
    i, f, o = sigmoid(x[:, :d]), sigmoid(x[:, d:2 * d] + 0.5), sigmoid(x[:, 2 * d:3 * d])
    g = np.tanh(x[:, 3 * d:])
    c = f * c_prev + i * g
    inputs = {"X": x, "C_prev": c_prev}
    check_op("lstm_unit", inputs, {"forget_bias": 0.5}, {"C": c, "H": o * np.tanh(c)})
    for out in ("H", "C"):
        check_grad("lstm_unit", inputs, {"forget_bias": 0.5}, wrt=("X", "C_prev"),
                   out_slot=out)


def test_lstm_unit_layer_projects_x_and_h_together():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = layers.data("x", [-1, 3])
        h = layers.data("h", [-1, 2])
        c = layers.data("c", [-1, 2])
        h1, c1 = layers.lstm_unit(x, h, c, forget_bias=1.0,
                                  param_attr=pir.ParamAttr(name="w"),
                                  bias_attr=pir.ParamAttr(name="b"))
    scope = pir.Scope()
    exe = pir.Executor()
    exe.run(startup, scope=scope)
    xs, hs, cs = (rng.uniform(-1, 1, s).astype(np.float32) for s in ((4, 3), (4, 2), (4, 2)))
    got_h, got_c = exe.run(main, feed={"x": xs, "h": hs, "c": cs}, fetch_list=[h1, c1],
                           scope=scope)
    w = np.asarray(scope.find_var("w").get_tensor())
    gates = np.concatenate([xs, hs], 1) @ w
    i, f, o = sigmoid(gates[:, :2]), sigmoid(gates[:, 2:4] + 1), sigmoid(gates[:, 4:6])
    want_c = f * cs + i * np.tanh(gates[:, 6:])
    np.testing.assert_allclose(got_c, want_c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_h, o * np.tanh(want_c), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="2nd dimensions of hidden_t_prev and cell_t_prev"):
        with pir.program_guard(pir.Program(), pir.Program()):
            layers.lstm_unit(layers.data("x", [-1, 3]), layers.data("h", [-1, 2]),
                             layers.data("c", [-1, 4]))


def test_expand_tiles_and_sums_back():
    x = rng.uniform(-1, 1, (2, 3))
    check_op("expand", {"X": x}, {"expand_times": [2, 3]}, {"Out": np.tile(x, (2, 3))})
    check_grad("expand", {"X": x}, {"expand_times": [3, 2]})
    lod_x = pir.create_lod_tensor(rng.uniform(-1, 1, (3, 2)), [[2, 1]])
    got = check_op("expand", {"X": lod_x}, {"expand_times": [1, 2]})["Out"][0]
    assert got.lod() == [[0, 2, 3]]
    with pytest.raises(ShapeInferenceError, match="one entry per dim"):
        check_op("expand", {"X": x}, {"expand_times": [2]})


def test_unstack_and_its_gradient():
    x = rng.uniform(-1, 1, (2, 3, 4))
    check_op("unstack", {"X": x}, {"axis": 1, "num": 3},
             {"Y": [x[:, k] for k in range(3)]}, outputs={"Y": 3})
    check_grad("unstack", {"X": x}, {"axis": -1, "num": 4}, out_slot="Y", outputs={"Y": 4})
    with pytest.raises(ShapeInferenceError, match="num \\(2\\) must equal"):
        check_op("unstack", {"X": x}, {"axis": 1, "num": 2}, outputs={"Y": 2})


@pytest.mark.parametrize("y_rows", [4, 1])
def test_cos_sim_and_its_gradient(y_rows):
    x, y = rng.uniform(-1, 1, (4, 3)), rng.uniform(-1, 1, (y_rows, 3))
    nx, ny = np.linalg.norm(x, axis=1), np.linalg.norm(y, axis=1)
    want = ((x * y).sum(1) / (nx * ny))[:, None]
    check_op("cos_sim", {"X": x, "Y": y}, {},
             {"Out": want, "XNorm": nx[:, None], "YNorm": ny[:, None]})
    check_grad("cos_sim", {"X": x, "Y": y}, wrt=("X", "Y"))


def test_small_layers():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        a = layers.data("a", [-1, 3])
        b = layers.data("b", [-1, 3])
        z, o = layers.zeros([2, 2], "int64"), layers.ones([3], "float32")
        zl = layers.zeros_like(a)
        s = layers.sums([a, b, a])
        e = layers.square_error_cost(a, b)
        sim = layers.cos_sim(a, b)
        parts = layers.unstack(a, axis=1)
        tiled = layers.expand(b, [1, 2])
    av, bv = rng.uniform(-1, 1, (2, 3)).astype(np.float32), rng.uniform(-1, 1, (2, 3)).astype(
        np.float32)
    got = pir.Executor().run(main, feed={"a": av, "b": bv},
                             fetch_list=[z, o, zl, s, e, sim, tiled] + parts)
    assert got[0].dtype == np.int64 and not got[0].any() and (got[1] == 1).all()
    assert got[2].shape == (2, 3) and not got[2].any()
    np.testing.assert_allclose(got[3], 2 * av + bv, rtol=1e-6)
    np.testing.assert_allclose(got[4], (av - bv) ** 2, rtol=1e-6)
    assert got[5].shape == (2, 1)
    np.testing.assert_array_equal(got[6], np.tile(bv, (1, 2)))
    for k in range(3):
        np.testing.assert_array_equal(got[7 + k], av[:, k])

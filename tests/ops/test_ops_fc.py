"""The fc layer: its program (names, initializers, shapes) and a two-layer MLP against numpy."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.framework.initializer import Constant

rng = np.random.RandomState(7)


def _mlp(main, startup, hidden=8, classes=3):
    with pir.program_guard(main, startup):
        x = pir.layers.data("x", [-1, 5])
        h = pir.layers.fc(x, hidden, act="relu")
        y = pir.layers.fc(h, classes, act="softmax")
    return x, h, y


def test_fc_program_follows_paddle():
    main, startup = pir.Program(), pir.Program()
    _, h, y = _mlp(main, startup)
    block = main.global_block()
    assert [op.type for op in block.ops] == ["mul", "elementwise_add", "relu"] * 1 + [
        "mul", "elementwise_add", "softmax"]
    assert [(p.name, p.shape) for p in main.all_parameters()] == [
        ("fc_0.w_0", (5, 8)), ("fc_0.b_0", (8,)), ("fc_1.w_0", (8, 3)), ("fc_1.b_0", (3,))]
    assert (h.name, h.shape, y.name, y.shape) == ("fc_0.tmp_2", (-1, 8), "fc_1.tmp_2", (-1, 3))
    assert block.ops[1].attr("axis") == 1
    # Xavier (uniform, limit sqrt(6 / (fan_in + fan_out))) for weights, zeros for biases.
    init = {op.output("Out")[0]: op for op in startup.global_block().ops}
    assert init["fc_0.w_0"].type == "uniform_random"
    assert init["fc_0.w_0"].attr("max") == pytest.approx(np.sqrt(6 / 13), rel=1e-6)
    assert init["fc_0.b_0"].type == "fill_constant" and init["fc_0.b_0"].attr("value") == 0


def test_two_layer_mlp_matches_numpy():
    main, startup = pir.Program(), pir.Program()
    _, h, y = _mlp(main, startup)
    scope = pir.Scope()
    exe = pir.Executor()
    exe.run(startup, scope=scope)
    params = {n: scope.find_var(n).get_tensor().numpy()
              for n in ("fc_0.w_0", "fc_0.b_0", "fc_1.w_0", "fc_1.b_0")}
    assert params["fc_0.b_0"].dtype == np.float32 and not params["fc_0.b_0"].any()
    limit = np.sqrt(6 / 13)
    assert np.abs(params["fc_0.w_0"]).max() <= limit and params["fc_0.w_0"].std() > 0

    xv = rng.randn(4, 5).astype(np.float32)
    got_h, got_y = exe.run(main, feed={"x": xv}, fetch_list=[h, y], scope=scope)

    x64 = xv.astype(np.float64)
    want_h = np.maximum(x64 @ params["fc_0.w_0"] + params["fc_0.b_0"], 0)
    logits = want_h @ params["fc_1.w_0"] + params["fc_1.b_0"]
    want_y = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(got_h, want_h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_y, want_y, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_y.sum(axis=1), 1, rtol=1e-6)


def test_mlp_runs_in_the_global_scope():
    main, startup = pir.Program(), pir.Program()
    _, _, y = _mlp(main, startup)
    exe = pir.Executor()
    with pir.scope_guard(pir.Scope()):
        exe.run(startup)
        w = pir.global_scope().find_var("fc_1.w_0").get_tensor().numpy()
        (out,) = exe.run(main, feed={"x": np.ones((2, 5), np.float32)}, fetch_list=[y])
    assert w.shape == (8, 3) and out.shape == (2, 3)


def test_fc_flattens_at_num_flatten_dims_and_takes_param_attrs():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = pir.layers.data("x", [-1, 3, 4])
        out = pir.layers.fc(x, 2, num_flatten_dims=2,
                            param_attr=pir.ParamAttr(name="w", initializer=Constant(0.5)),
                            bias_attr=pir.ParamAttr(name="b", initializer=Constant(1.0)))
        no_bias = pir.layers.fc(x, 6, bias_attr=False, name="proj")
    assert out.shape == (-1, 3, 2) and no_bias.shape == (-1, 6)
    assert [p.name for p in main.all_parameters()] == ["w", "b", "proj.w_0"]
    assert [op.type for op in main.global_block().ops] == ["mul", "elementwise_add", "mul"]
    scope = pir.Scope()
    exe = pir.Executor()
    exe.run(startup, scope=scope)
    xv = rng.randn(2, 3, 4).astype(np.float32)
    (got,) = exe.run(main, feed={"x": xv}, fetch_list=[out], scope=scope)
    want = xv.sum(axis=2, keepdims=True) * 0.5 + 1.0
    np.testing.assert_allclose(got, np.repeat(want, 2, axis=2), rtol=1e-5)


def test_fc_of_several_inputs_sums_their_products():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        a = pir.layers.data("a", [-1, 2])
        b = pir.layers.data("b", [-1, 3])
        out = pir.layers.fc([a, b], 4, param_attr=[Constant(1.0), Constant(2.0)])
    assert [op.type for op in main.global_block().ops] == ["mul", "mul", "sum",
                                                           "elementwise_add"]
    assert [p.name for p in main.all_parameters()] == ["fc_0.w_0", "fc_0.w_1", "fc_0.b_0"]
    scope = pir.Scope()
    exe = pir.Executor()
    exe.run(startup, scope=scope)
    av, bv = rng.randn(3, 2).astype(np.float32), rng.randn(3, 3).astype(np.float32)
    (got,) = exe.run(main, feed={"a": av, "b": bv}, fetch_list=[out], scope=scope)
    want = av.sum(axis=1, keepdims=True) + 2 * bv.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(got, np.repeat(want, 4, axis=1), rtol=1e-5)


@pytest.mark.parametrize("shape, kwargs, message", [
    ([-1, -1], {}, r"its dims from num_flatten_dims=1 on must be known"),
    ([-1, 4], {"num_flatten_dims": 2}, r"num_flatten_dims must be in \[1, 2\)"),
    ([-1, 4], {"param_attr": False}, r"param_attr cannot be False"),
])
def test_fc_errors(shape, kwargs, message):
    with pir.program_guard(pir.Program(), pir.Program()):
        x = pir.layers.data("x", shape, append_batch_size=False)
        with pytest.raises(pir.ProgramError, match=message):
            pir.layers.fc(x, 3, **kwargs)


def test_fc_shape_mismatch_through_mul_names_the_line():
    with pir.program_guard(pir.Program(), pir.Program()):
        x = pir.layers.data("x", [-1, 784])
        w = pir.layers.data("w", [100, 10], append_batch_size=False)
        with pytest.raises(pir.ProgramError, match=r"(?s)X.shape\[1\] must equal Y.shape\[0\], "
                           r"but got X.shape=\[-1, 784\] and Y.shape=\[100, 10\].*"
                           r"op created at tests/ops/test_ops_fc.py:\d+"):
            pir.layers.mul(x, w)

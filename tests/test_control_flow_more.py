"""Print, while_loop, case, switch_case, IfElse and StaticRNN against plain Python."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.core.errors import InvalidProgramError

rng = np.random.RandomState(31)


def _fresh():
    return pir.Program(), pir.Program()


def _run(main, startup, feed, fetch, runs=1):
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    out = None
    for _ in range(runs):
        out = exe.run(main, feed=feed, fetch_list=fetch, scope=scope)
    return out


def test_print_passes_through_and_prints_first_n(capsys):
    main, startup = _fresh()
    with pir.program_guard(main, startup):
        x = layers.data("x", [-1, 2])
        x.stop_gradient = False
        y = layers.Print(x, first_n=2, message="hello", summarize=3)
        loss = layers.mean(y * 3.0)
        pir.append_backward(loss)
    xv = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    for _ in range(3):
        (yv, g) = exe.run(main, feed={"x": xv}, fetch_list=[y, "x@GRAD"], scope=scope)
    np.testing.assert_allclose(yv, xv)
    np.testing.assert_allclose(g, np.full_like(xv, 3.0 / 4))
    printed = capsys.readouterr().out
    # one counter counts forward and backward prints: first_n=2 is run 1's two prints
    assert printed.count("hello") == 2
    assert "Tensor[x]" in printed and "shape: [2, 2]" in printed
    assert "data: 1.0, 2.0, 3.0" in printed


def test_while_loop_sums():
    main, startup = _fresh()
    with pir.program_guard(main, startup):
        i = layers.fill_constant([1], "int64", 0)
        total = layers.fill_constant([1], "float32", 0.0)
        ten = layers.fill_constant([1], "int64", 10)

        def body(i, total):
            return [layers.increment(i, in_place=False), total + layers.cast(i, "float32")]

        i_out, total_out = layers.while_loop(lambda i, total: layers.less_than(i, ten), body,
                                             [i, total])
    iv, tv = _run(main, startup, {}, [i_out, total_out])
    assert int(iv[0]) == 10 and float(tv[0]) == sum(range(10))


@pytest.mark.parametrize("value, want", [(0.5, 1.0), (2.5, 2.0), (9.0, 3.0)])
def test_case(value, want):
    main, startup = _fresh()
    with pir.program_guard(main, startup):
        x = layers.fill_constant([1], "float32", value)
        one = layers.fill_constant([1], "float32", 1.0)
        three = layers.fill_constant([1], "float32", 3.0)
        out = layers.case([(layers.less_than(x, one), lambda: layers.fill_constant(
            [1], "float32", 1.0)), (layers.less_than(x, three), lambda: layers.fill_constant(
                [1], "float32", 2.0))], default=lambda: layers.fill_constant([1], "float32", 3.0))
    (v,) = _run(main, startup, {}, [out])
    assert float(np.asarray(v).reshape(-1)[0]) == want


@pytest.mark.parametrize("index, want", [(0, 10.0), (2, 12.0), (5, 12.0)])
def test_switch_case_default_is_the_last_branch(index, want):
    main, startup = _fresh()
    with pir.program_guard(main, startup):
        idx = layers.fill_constant([1], "int32", index)
        out = layers.switch_case(idx, {k: (lambda k=k: layers.fill_constant(
            [1], "float32", 10.0 + k)) for k in (0, 1, 2)})
    (v,) = _run(main, startup, {}, [out])
    assert float(np.asarray(v).reshape(-1)[0]) == want


def test_if_else_rows_and_gradient():
    xv = rng.uniform(-1, 1, (6, 3)).astype(np.float32)
    main, startup = _fresh()
    with pir.program_guard(main, startup):
        x = layers.data("x", [-1, 3])
        x.stop_gradient = False
        c = layers.greater_than(layers.reduce_sum(x, dim=1, keep_dim=True),
                                layers.fill_constant([1], "float32", 0.0))
        ie = layers.IfElse(c)
        with ie.true_block():
            ie.output(layers.scale(ie.input(x), 2.0))
        with ie.false_block():
            ie.output(layers.scale(ie.input(x), 1.0, bias=-1.0))
        (out,) = ie()
        loss = layers.reduce_sum(out)
        pir.append_backward(loss)
    ov, g = _run(main, startup, {"x": xv}, [out, "x@GRAD"])
    pos = xv.sum(1) > 0
    want = np.where(pos[:, None], 2 * xv, xv - 1)
    np.testing.assert_allclose(ov, want, rtol=1e-6)
    np.testing.assert_allclose(g, np.where(pos[:, None], 2.0, 1.0) * np.ones_like(xv))


def test_static_rnn_matches_numpy_and_trains():
    t, b, d, h = 4, 3, 2, 5
    xv = rng.uniform(-1, 1, (t, b, d)).astype(np.float32)
    main, startup = _fresh()
    with pir.program_guard(main, startup):
        x = layers.data("x", [t, b, d], append_batch_size=False)
        rnn = layers.StaticRNN()
        with rnn.step():
            word = rnn.step_input(x)
            prev = rnn.memory(shape=[-1, h], batch_ref=word, init_value=0.5)
            hidden = layers.fc([word, prev], h, act="tanh",
                               param_attr=[pir.ParamAttr(name="wx"), pir.ParamAttr(name="wh")],
                               bias_attr=pir.ParamAttr(name="bh"))
            rnn.update_memory(prev, hidden)
            rnn.step_output(hidden)
        out = rnn()
        loss = layers.mean(out)
        pir.optimizer.SGD(0.5).minimize(loss)
    assert out.shape[0] == t and main.num_blocks == 1
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    wx, wh, bh = (np.array(scope.find_var(n).get_tensor()).copy() for n in ("wx", "wh", "bh"))
    (ov,) = exe.run(main, feed={"x": xv}, fetch_list=[out], scope=scope)
    state = np.full((b, h), 0.5)
    want = []
    for step in range(t):
        state = np.tanh(xv[step] @ wx + state @ wh + bh)
        want.append(state)
    np.testing.assert_allclose(ov, np.stack(want), rtol=1e-5, atol=1e-6)
    losses = [float(np.asarray(exe.run(main, feed={"x": xv}, fetch_list=[loss],
                                       scope=scope)[0]).reshape(-1)[0]) for _ in range(5)]
    assert losses[-1] < losses[0]


def test_static_rnn_errors():
    main, startup = _fresh()
    with pir.program_guard(main, startup):
        x = layers.data("x", [-1, 3, 2])
        rnn = layers.StaticRNN()
        with pytest.raises(InvalidProgramError, match="must have a known first dim"):
            with rnn.step():
                rnn.step_input(x)
    with pytest.raises(InvalidProgramError, match="must be called inside rnn.step"):
        layers.StaticRNN().step_output(x)

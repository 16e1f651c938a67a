"""Precomputing the ops that read no feed (paddle_ir/passes/precompute.py), through
optimize_inference as load_inference_model and `paddle-ir run` call it."""

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.core.errors import ProgramError
from paddle_ir.passes.inference import optimize_inference
from paddle_ir.passes.precompute import MAX_ELEMENTS
from tests.cli.test_cli import ok
from tests.paddle_helpers import feeds as fixture_feeds

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "paddle"


def _ops(program) -> Counter:
    return Counter(op.type for op in program.global_block().ops)


def _net():
    """out = (x + cast(scale(w))) * fill_constant + shape(w)[1]: every op but the two
    reading x depends on parameters only."""
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = layers.data("x", [6], dtype="float32")
        w = layers.create_parameter([6], "float64", name="w64")
        w32 = layers.cast(layers.scale(w, 2.0, bias=0.5), "float32")
        k = layers.fill_constant([1], "float32", 3.0)
        width = layers.cast(layers.shape(layers.reshape(w, [2, 3])), "float32")
        y = layers.elementwise_mul(layers.elementwise_add(x, w32), k)
        out = layers.elementwise_add(y, layers.reduce_sum(width))
    return main, startup, out


def _run(program, scope, out, x):
    return pir.Executor().run(program, feed={"x": x}, fetch_list=[out], scope=scope)[0]


def test_parameter_only_ops_become_values_with_the_same_results():
    main, startup, out = _net()
    scope = pir.Scope()
    pir.Executor().run(startup, scope=scope)
    w = np.random.default_rng(3).standard_normal(6)
    scope.find_var("w64").get_tensor().set(w)
    test = main.clone(for_test=True)
    x = np.random.default_rng(4).standard_normal((2, 6)).astype(np.float32)
    want = _run(test, scope, out.name, x)
    np.testing.assert_allclose(want, (x + (2 * w + 0.5).astype(np.float32)) * 3 + 5,
                               rtol=1e-6)
    optimized = optimize_inference(test, scope, keep=["x", out.name])
    assert set(_ops(optimized)) == {"elementwise_add", "elementwise_mul"}
    assert _ops(optimized)["elementwise_add"] == 2
    np.testing.assert_array_equal(_run(optimized, scope, out.name, x), want)
    # Only what the remaining ops read is kept, persistable, in the scope; w64 is read by
    # nobody now and goes from program and scope.
    persistable = {v.name for v in optimized.global_block().vars.values() if v.persistable}
    assert "w64" not in persistable and scope.find_var("w64") is None
    assert len(persistable) == 3 and all(scope.find_var(n) for n in persistable)
    assert test.global_block().has_var("w64")  # the original program is not changed


def test_what_reads_a_feed_or_must_stay_is_not_precomputed():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = layers.data("x", [4], dtype="float32")
        fetched = layers.fill_constant([1], "float32", 2.0)  # fetched: stays
        noise = layers.uniform_random([4], "float32")  # random: stays
        rows = layers.shape(x)  # reads the feed: stays
        big = layers.fill_constant([MAX_ELEMENTS + 1], "float32", 1.0)  # too big: stays
        twice = layers.fill_constant([4], "float32", 1.0)
        layers.assign(x, output=twice)  # written again: stays
        out = layers.elementwise_add(x, noise) + layers.reduce_sum(big) + twice
        out = layers.elementwise_mul(out, fetched)
    keep = ["x", out.name, fetched.name, rows.name]
    optimized = optimize_inference(main, keep=keep)
    assert _ops(optimized)["fill_constant"] == 3 and _ops(optimized)["uniform_random"] == 1
    assert _ops(optimized)["shape"] == 1


def test_an_op_that_fails_is_left_for_the_executor_to_report():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = layers.data("x", [3], dtype="float32")
        w = layers.create_parameter([3], "float32", name="w3")
        out = layers.elementwise_add(x, layers.scale(w, 2.0))
    scope = pir.Scope()  # the startup program did not run: w3 has no value
    optimized = optimize_inference(main, scope, keep=["x", out.name])
    assert optimized is main
    with pytest.raises(ProgramError, match="w3"):
        _run(optimized, scope, out.name, np.zeros((1, 3), np.float32))


def test_lstm_fixture_initial_state_scalars_are_precomputed():
    """Paddle's nn.LSTM builds its zero state from four scalar fill_constants and the
    batch size: the scalars become values, the rest (read from the feed) stays."""
    exe = pir.Executor()
    path = str(FIXTURES / "rnn_text" / "model.pdmodel")
    plain, optimized = pir.Scope(), pir.Scope()
    p0, _, f0 = pir.io.load_inference_model(path, exe, scope=plain, optimize=False)
    p1, _, f1 = pir.io.load_inference_model(path, exe, scope=optimized)
    fills = [op for op in p0.global_block().ops if op.type == "fill_constant"]
    free = [op for op in fills if not any(op.input(s) for s in op.input_names)]
    assert free and _ops(p1)["fill_constant"] == len(fills) - len(free)
    for op in free:
        var = p1.global_block().var(op.output("Out")[0])
        assert var.persistable and optimized.find_var(var.name) is not None
    feed = fixture_feeds("rnn_text")
    want = exe.run(p0, feed=feed, fetch_list=f0, scope=plain)
    got = exe.run(p1, feed=feed, fetch_list=f1, scope=optimized)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_dump_shows_the_values_and_run_no_optimize_keeps_the_ops(tmp_path):
    main, startup, out = _net()
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    pir.io.save_inference_model(str(tmp_path / "m"), ["x"], [out], exe, main_program=main,
                                scope=scope)
    shown = ok("dump", tmp_path / "m", "--optimized")
    assert "= fill_constant(" not in shown and "= shape(" not in shown
    assert "persist var fill_constant_0.tmp_0" in shown
    assert "= fill_constant(" in ok("dump", tmp_path / "m")
    np.savez(tmp_path / "feeds.npz", x=np.ones((2, 6), np.float32))
    for flag in ([], ["--no-optimize"]):
        ok("run", tmp_path / "m", "--feeds", tmp_path / "feeds.npz", "--out",
           tmp_path / f"out{len(flag)}.npz", *flag)
    got, want = np.load(tmp_path / "out0.npz"), np.load(tmp_path / "out1.npz")
    for key in want:
        np.testing.assert_array_equal(got[key], want[key])

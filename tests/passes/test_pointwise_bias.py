"""paddle_ir/passes/pointwise_bias.py: a convolution's bias moved into the 1x1 after it."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.passes.inference import _rewrite, optimize_inference
from paddle_ir.passes.pointwise_bias import fold_pointwise_bias
from tests.passes.test_inference import _randomize


def _chain(first_act=None, padding=0, groups=1, fetch_middle=False):
    """depthwise 3x3 (bias, first_act) -> 1x1 (bias, relu) -> 3x3 (bias) -> 1x1 (bias)."""
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        image = layers.data("image", [4, 6, 5], dtype="float32")
        mid = layers.conv2d(image, 4, 3, padding=1, groups=4, act=first_act)
        x = layers.conv2d(mid, 6, 1, padding=padding, groups=groups, act="relu")
        x = layers.conv2d(x, 6, 3, padding=1)
        out = layers.conv2d(x, 3, 1)
    return main, startup, out, (mid if fetch_middle else None)


def _run(main, startup, out, middle, seed):
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(seed)
    _randomize(scope, main, rng)
    feed = {"image": rng.standard_normal((2, 4, 6, 5)).astype(np.float32)}
    keep = [out.name] + ([middle.name] if middle is not None else [])
    want = exe.run(main, feed=feed, fetch_list=[out.name], scope=scope)[0]
    fused = _rewrite(main, scope, keep)  # optimize_inference's rewrites before this pass
    folded = fold_pointwise_bias(fused, scope, keep=keep)
    got = exe.run(folded, feed=feed, fetch_list=[out.name], scope=scope)[0]
    return fused, folded, want, got


def _biased(program):
    return [bool(op.input("Bias")) for op in program.global_block().ops
            if op.type == "fused_conv2d"]


def test_the_biases_move_into_the_1x1_convolutions_with_the_same_results():
    fused, folded, want, got = _run(*_chain(), seed=0)
    assert _biased(fused) == [True, True, True, True]
    assert _biased(folded) == [False, True, False, True]  # both pairs folded
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
    names = [op.input("Bias")[0] for op in folded.global_block().ops
             if op.type == "fused_conv2d" and op.input("Bias")]
    assert all(name.endswith(".pointwise_folded") for name in names)
    assert all(folded.global_block().var(name).persistable for name in names)


def test_optimize_inference_ends_with_this_pass():
    main, startup, out, _ = _chain()
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    _randomize(scope, main, np.random.default_rng(1))
    assert _biased(optimize_inference(main, scope, keep=[out.name])) == [False, True, False, True]


@pytest.mark.parametrize("chain", [
    {"first_act": "relu"},  # the activation comes after the bias
    {"padding": 1},  # a padded 1x1 convolution's border pixels never saw the bias
    {"groups": 2},  # a grouped one mixes fewer channels than the bias's product assumes
    {"fetch_middle": True},  # the first output is fetched: its bias must stay
])
def test_what_the_bias_cannot_cross_stays(chain):
    fused, folded, want, got = _run(*_chain(**chain), seed=1)
    assert _biased(folded)[:2] == [True, True]
    assert _biased(folded)[2:] == [False, True]  # the second pair still folds
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def test_without_a_scope_or_on_a_training_program_nothing_changes():
    main, startup, out, _ = _chain()
    fused = optimize_inference(main, None, keep=[out.name])
    assert fold_pointwise_bias(fused, None, keep=[out.name]) is fused
    with pir.program_guard(main, startup):
        pir.optimizer.SGD(0.1).minimize(layers.mean(out))
    scope = pir.Scope()
    pir.Executor().run(startup, scope=scope)
    assert fold_pointwise_bias(main, scope, keep=[out.name]) is main

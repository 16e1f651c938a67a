"""sequence_conv against a per-sequence numpy loop with explicit zero padding, plus its layer,
nets.sequence_conv_pool and a CNN text classifier trained on synthetic data."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.core.errors import ShapeInferenceError
from paddle_ir.layers import nets
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(3)


def reference_conv(x, lengths, w, start, length):
    """Pad each sequence alone with zeros, slide the window, multiply."""
    out, pos = [], 0
    width = x.shape[1]
    for n in lengths:
        seq = x[pos:pos + n].astype(np.float64)
        before, after = max(0, -start), max(0, start + length - 1)
        padded = np.concatenate([np.zeros((before, width)), seq, np.zeros((after, width))])
        for t in range(n):
            lo = t + start + before
            out.append(padded[lo:lo + length].reshape(-1) @ w)
        pos += n
    return np.asarray(out).reshape(len(x), w.shape[1]).astype(x.dtype)


@pytest.mark.parametrize("start,length", [(-1, 3), (0, 3), (-2, 2), (1, 2), (-3, 1), (2, 3)])
def test_windows_stay_inside_each_sequence(start, length):
    lengths = [3, 1, 0, 5, 2]
    x = rng.uniform(-1, 1, (sum(lengths), 4)).astype(np.float32)
    w = rng.uniform(-1, 1, (length * 4, 3)).astype(np.float32)
    want = reference_conv(x, lengths, w.astype(np.float64), start, length)
    check_op("sequence_conv", {"X": pir.create_lod_tensor(x, [lengths]), "Filter": w},
             {"contextStart": start, "contextLength": length},
             {"Out": pir.create_lod_tensor(want, [lengths])}, atol=1e-5)


def test_paddle_doc_example_rows():
    # Fluid docs: lod [[0, 3, 4]], start -1, length 3: windows [0 a b], [a b c], [b c 0], [0 d 0]
    x = np.array([[1, 1], [2, 2], [3, 3], [4, 4]], dtype=np.float64)
    w = np.eye(6)
    got = check_op("sequence_conv", {"X": pir.create_lod_tensor(x, [[3, 1]]), "Filter": w},
                   {"contextStart": -1, "contextLength": 3})["Out"][0]
    np.testing.assert_array_equal(got.numpy(), [[0, 0, 1, 1, 2, 2], [1, 1, 2, 2, 3, 3],
                                                [2, 2, 3, 3, 0, 0], [0, 0, 4, 4, 0, 0]])


@pytest.mark.parametrize("start,length", [(-1, 3), (1, 2)])
def test_gradients_match_finite_differences(start, length):
    lengths = [2, 4, 1]
    x = pir.create_lod_tensor(rng.uniform(-1, 1, (7, 3)), [lengths])
    w = rng.uniform(-1, 1, (length * 3, 2))
    check_grad("sequence_conv", {"X": x, "Filter": w},
               {"contextStart": start, "contextLength": length}, wrt=("X", "Filter"))


def test_two_level_input_convolves_the_last_level():
    x = rng.uniform(-1, 1, (6, 2)).astype(np.float32)
    w = rng.uniform(-1, 1, (6, 2)).astype(np.float32)
    want = reference_conv(x, [2, 1, 3], w.astype(np.float64), -1, 3)
    check_op("sequence_conv", {"X": pir.create_lod_tensor(x, [[2, 1], [2, 1, 3]]), "Filter": w},
             {"contextStart": -1, "contextLength": 3},
             {"Out": pir.create_lod_tensor(want, [[2, 1], [2, 1, 3]])}, atol=1e-5)


def _build_errors(shape, lod_level, filter_rows, **attrs):
    prog = pir.Program()
    with pir.program_guard(prog, pir.Program()):
        block = prog.global_block()
        x = block.create_var(name="x", shape=shape, dtype="float32", lod_level=lod_level)
        w = block.create_var(name="w", shape=[filter_rows, 2], dtype="float32")
        out = block.create_var(name="out", dtype="float32")
        block.append_op("sequence_conv", inputs={"X": x, "Filter": w}, outputs={"Out": out},
                        attrs={"contextLength": 3, **attrs})


def test_build_time_errors_name_the_problem():
    with pytest.raises(ShapeInferenceError, match="LoD level Input\\(X\\) of sequence_conv"):
        _build_errors([-1, 4], 0, 12)
    with pytest.raises(ShapeInferenceError, match="contextLength \\* X's width = 3 \\* 4"):
        _build_errors([-1, 4], 1, 10)
    with pytest.raises(ShapeInferenceError, match="only supports contextStride=1"):
        _build_errors([-1, 4], 1, 12, contextStride=2)
    with pytest.raises(ShapeInferenceError, match="paddingTrainable=False"):
        _build_errors([-1, 4], 1, 12, paddingTrainable=True)


def test_layer_adds_bias_and_activation_and_keeps_lod():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = layers.data("x", [-1, 4], lod_level=1)
        y = layers.sequence_conv(x, num_filters=5, filter_size=3, act="tanh",
                                 bias_attr=pir.ParamAttr(initializer=pir.initializer.Constant(0.5)))
    assert y.lod_level == 1 and list(y.shape) == [-1, 5]
    exe = pir.Executor()
    scope = pir.Scope()
    exe.run(startup, scope=scope)
    xs = rng.uniform(-1, 1, (6, 4)).astype(np.float32)
    (got,) = exe.run(main, feed={"x": pir.create_lod_tensor(xs, [[4, 2]])}, fetch_list=[y],
                     scope=scope, return_numpy=False)
    w = np.asarray(scope.find_var("sequence_conv_0.w_0").get_tensor())
    want = np.tanh(reference_conv(xs, [4, 2], w.astype(np.float64), -1, 3) + 0.5)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)
    assert got.lod() == [[0, 4, 6]]


def test_sequence_conv_pool_pools_one_row_per_sequence():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = layers.data("x", [-1, 3], lod_level=1)
        pooled = nets.sequence_conv_pool(x, num_filters=4, filter_size=2, pool_type="sum")
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    xs = rng.uniform(-1, 1, (5, 3)).astype(np.float32)
    (got,) = exe.run(main, feed={"x": pir.create_lod_tensor(xs, [[2, 3]])},
                     fetch_list=[pooled], scope=scope)
    w = np.asarray(scope.find_var("sequence_conv_0.w_0").get_tensor()).astype(np.float64)
    conv = 1 / (1 + np.exp(-reference_conv(xs, [2, 3], w, -1, 2)))  # default act sigmoid
    np.testing.assert_allclose(got, [conv[:2].sum(0), conv[2:].sum(0)], rtol=1e-5)


def test_scaled_dot_product_attention_single_head():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        q = layers.data("q", [-1, 3, 4])
        k = layers.data("k", [-1, 5, 4])
        v = layers.data("v", [-1, 5, 6])
        ctx = nets.scaled_dot_product_attention(q, k, v)
    qs, ks, vs = (rng.uniform(-1, 1, s).astype(np.float32) for s in
                  ((2, 3, 4), (2, 5, 4), (2, 5, 6)))
    exe = pir.Executor()
    exe.run(startup)
    (got,) = exe.run(main, feed={"q": qs, "k": ks, "v": vs}, fetch_list=[ctx])
    logits = qs @ ks.transpose(0, 2, 1) / 2.0
    weights = np.exp(logits - logits.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    np.testing.assert_allclose(got, weights @ vs, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="divisible by the number of attention heads"):
        with pir.program_guard(pir.Program(), pir.Program()):
            a = layers.data("a", [-1, 3, 4])
            b = layers.data("b", [-1, 3, 5])
            nets.scaled_dot_product_attention(a, a, b, num_heads=2)

"""fluid.nets over the vision and tensor layers: glu, multi-head attention, the conv blocks,
each against numpy written here from the parameters the program created."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.layers import nets
from tests.ops.sequence_ops.test_sequence_conv import reference_conv

rng = np.random.RandomState(0)


def _run(build, feeds):
    main, startup = pir.Program(), pir.Program()
    startup.random_seed = 5
    with pir.program_guard(main, startup):
        out = build()
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    (got,) = exe.run(main, feed=feeds, fetch_list=[out], scope=scope)
    params = {p.name: scope.find_var(p.name).get_tensor().numpy()
              for p in main.global_block().all_parameters()}
    return got, params, main


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def test_glu_is_the_first_half_gated_by_the_second():
    x = rng.randn(3, 8).astype(np.float32)
    got, _, _ = _run(lambda: nets.glu(pir.layers.data("x", [3, 8], append_batch_size=False),
                                      dim=-1), {"x": x})
    np.testing.assert_allclose(got, x[:, :4] * _sigmoid(x[:, 4:]), rtol=1e-6)


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_multi_head_attention_matches_numpy():
    n, lq, lk, d, heads = 2, 3, 4, 8, 2
    q, k, v = (rng.randn(n, length, d).astype(np.float32) for length in (lq, lk, lk))

    def build():
        qv, kv, vv = (pir.layers.data(name, list(x.shape), append_batch_size=False)
                      for name, x in (("q", q), ("k", k), ("v", v)))
        return nets.scaled_dot_product_attention(qv, kv, vv, num_heads=heads)

    got, params, _ = _run(build, {"q": q, "k": k, "v": v})
    projected = [x @ params[f"fc_{i}.w_0"] + params[f"fc_{i}.b_0"]
                 for i, x in enumerate((q, k, v))]
    split = [p.reshape(n, -1, heads, d // heads).transpose(0, 2, 1, 3) for p in projected]
    weights = _softmax(split[0] @ split[1].transpose(0, 1, 3, 2) / np.sqrt(d // heads))
    want = (weights @ split[2]).transpose(0, 2, 1, 3).reshape(n, lq, d)
    assert got.shape == (n, lq, d)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _conv2d(x, w, b):
    n, c, h, wd = x.shape
    oc, _, kh, kw = w.shape
    out = np.zeros((n, oc, h - kh + 1, wd - kw + 1), np.float64)
    for i in range(out.shape[2]):
        for j in range(out.shape[3]):
            patch = x[:, :, i:i + kh, j:j + kw]
            out[:, :, i, j] = np.tensordot(patch, w, axes=([1, 2, 3], [1, 2, 3]))
    return out + b.reshape(1, -1, 1, 1)


def _max_pool(x, size, stride):
    oh, ow = (x.shape[2] - size) // stride + 1, (x.shape[3] - size) // stride + 1
    out = np.empty(x.shape[:2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = x[:, :, i * stride:i * stride + size,
                                j * stride:j * stride + size].max(axis=(2, 3))
    return out


def test_simple_img_conv_pool_is_conv_then_pool():
    x = rng.randn(2, 2, 6, 6).astype(np.float32)

    def build():
        img = pir.layers.data("img", [2, 2, 6, 6], append_batch_size=False)
        return nets.simple_img_conv_pool(img, num_filters=3, filter_size=3, pool_size=2,
                                         pool_stride=2, act="relu")

    got, params, main = _run(build, {"img": x})
    conv = np.maximum(_conv2d(x, params["conv2d_0.w_0"], params["conv2d_0.b_0"]), 0)
    np.testing.assert_allclose(got, _max_pool(conv, 2, 2), rtol=1e-5, atol=1e-6)
    assert [op.type for op in main.global_block().ops][-1] == "pool2d"


def test_img_conv_group_builds_a_vgg_block():
    x = rng.randn(2, 3, 8, 8).astype(np.float32)

    def build():
        img = pir.layers.data("img", [2, 3, 8, 8], append_batch_size=False)
        return nets.img_conv_group(img, conv_num_filter=[4, 4], pool_size=2, pool_stride=2,
                                   conv_act="relu", conv_with_batchnorm=True,
                                   conv_batchnorm_drop_rate=[0.0, 0.5])

    got, _, main = _run(build, {"img": x})
    types = [op.type for op in main.global_block().ops]
    assert types.count("conv2d") == 2 and types.count("batch_norm") == 2
    assert types.count("dropout") == 1 and types[-1] == "pool2d"
    assert got.shape == (2, 4, 4, 4) and (got >= 0).all()  # relu before the max pool
    with pytest.raises(ValueError, match="conv_padding has 3 entries for 2 convolutions"):
        with pir.program_guard(pir.Program(), pir.Program()):
            img = pir.layers.data("img", [2, 3, 8, 8], append_batch_size=False)
            nets.img_conv_group(img, [4, 4], 2, conv_padding=[1, 1, 1])


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

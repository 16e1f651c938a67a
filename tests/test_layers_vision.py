"""The Fluid layers of layers/vision.py, tensor_ops.py and resize.py: the ops they append,
a small conv net that trains, batch_norm's in-place statistics, clone(for_test)."""

import numpy as np
import pytest

import paddle_ir as pir

rng = np.random.RandomState(21)


def _ops(program):
    return [op.type for op in program.global_block().ops]


def _build(fn):
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = 3
    with pir.program_guard(main, startup):
        result = fn()
    return main, startup, result


def test_conv_net_trains_and_updates_batch_norm_statistics():
    def net():
        img = pir.layers.data("img", [-1, 3, 8, 8])
        label = pir.layers.data("label", [-1, 1], dtype="int64")
        h = pir.layers.conv2d(img, 8, 3, padding=1, act=None)
        h = pir.layers.batch_norm(h, act="relu", momentum=0.5)
        h = pir.layers.conv2d(h, 8, 3, groups=8, use_cudnn=False, padding="SAME")
        h = pir.layers.pool2d(h, 2, "max", 2)
        h = pir.layers.dropout(h, 0.2, dropout_implementation="upscale_in_train")
        h = pir.layers.flatten(h)
        logits = pir.layers.fc(h, 4)
        loss = pir.layers.mean(pir.layers.softmax_with_cross_entropy(logits, label))
        pir.optimizer.SGD(0.1).minimize(loss)
        return loss

    main, startup, loss = _build(net)
    assert _ops(main)[:9] == ["conv2d", "elementwise_add", "batch_norm", "relu",
                              "depthwise_conv2d", "elementwise_add", "pool2d", "dropout",
                              "flatten2"]
    bn = next(op for op in main.global_block().ops if op.type == "batch_norm")
    assert bn.output("MeanOut") == bn.input("Mean")  # updated in place
    scope = pir.Scope()
    exe = pir.Executor()
    exe.run(startup, scope=scope)
    img = rng.randn(16, 3, 8, 8).astype(np.float32)
    label = (img.mean(axis=(1, 2, 3)) > 0).astype(np.int64).reshape(-1, 1)
    mean_name = bn.input("Mean")[0]
    losses = [float(np.asarray(exe.run(main, feed={"img": img, "label": label},
                                       fetch_list=[loss], scope=scope)[0]).reshape(-1)[0])
              for _ in range(30)]
    assert losses[-1] < losses[0] * 0.7, losses
    after = exe.run(main, feed={"img": img, "label": label}, fetch_list=[mean_name],
                    scope=scope)[0]
    assert np.abs(np.asarray(after)).max() > 1e-3  # the moving mean started at zeros

    test_program = main.clone(for_test=True)
    flags = {op.type: op.attr("is_test") for op in test_program.global_block().ops
             if op.type in ("batch_norm", "dropout")}
    assert flags == {"batch_norm": True, "dropout": True}
    a = exe.run(test_program, feed={"img": img, "label": label}, fetch_list=[loss], scope=scope)
    b = exe.run(test_program, feed={"img": img, "label": label}, fetch_list=[loss], scope=scope)
    np.testing.assert_array_equal(a[0], b[0])  # no dropout mask, frozen statistics


def test_conv2d_layer_matches_the_op_and_its_attributes():
    def net():
        x = pir.layers.data("x", [-1, 4, 6, 6])
        return x, pir.layers.conv2d(x, 6, [3, 2], stride=[2, 1], padding=[1, 0, 2, 1],
                                    dilation=2, groups=2, bias_attr=False,
                                    data_format="NCHW")

    main, startup, (x, out) = _build(net)
    op = main.global_block().ops[0]
    assert (op.type, op.attr("paddings"), op.attr("strides"), op.attr("dilations"),
            op.attr("groups")) == ("conv2d", [1, 0, 2, 1], [2, 1], [2, 2], 2)
    w = main.global_block().var(op.input("Filter")[0])
    assert tuple(w.shape) == (6, 2, 3, 2)
    assert tuple(out.shape) == (-1, 6, 2, 7)  # (6+1-5)//2+1, (6+3-3)//1+1


@pytest.mark.parametrize("padding, want", [("SAME", ([0, 0], "SAME")),
                                           ("valid", ([0, 0], "VALID")),
                                           ([[0, 0], [0, 0], [1, 2], [3, 4]],
                                            ([1, 2, 3, 4], "EXPLICIT"))])
def test_conv2d_padding_forms(padding, want):
    main, _, _ = _build(lambda: pir.layers.conv2d(pir.layers.data("x", [-1, 2, 5, 5]), 3, 3,
                                                  padding=padding))
    op = main.global_block().ops[0]
    assert (op.attr("paddings"), op.attr("padding_algorithm")) == want


def test_shape_layers_append_the_v2_ops_with_xshape():
    def net():
        x = pir.layers.data("x", [-1, 1, 4, 6])
        return [pir.layers.reshape(x, [0, 4, -1]), pir.layers.flatten(x, axis=2),
                pir.layers.transpose(x, [0, 2, 3, 1]), pir.layers.squeeze(x, [1]),
                pir.layers.unsqueeze(x, [0, 5]),
                pir.layers.slice(x, axes=[2, 3], starts=[1, -3], ends=[3, 100]),
                pir.layers.stack([x, x], axis=1), pir.layers.argmax(x, axis=3),
                *pir.layers.split(x, [2, -1, 1], dim=3)]

    main, _, outs = _build(net)
    assert _ops(main) == ["reshape2", "flatten2", "transpose2", "squeeze2", "unsqueeze2",
                          "slice", "stack", "arg_max", "split"]
    for op in main.global_block().ops[:5]:
        assert op.output("XShape"), op.type
    x = rng.randn(2, 1, 4, 6).astype(np.float32)
    got = pir.Executor().run(main, feed={"x": x}, fetch_list=outs, scope=pir.Scope())
    want = [x.reshape(2, 4, 6), x.reshape(2, 24), x.transpose(0, 2, 3, 1), x[:, 0],
            x[None, ..., None], x[:, :, 1:3, 3:], np.stack([x, x], 1), x.argmax(3),
            x[..., :2], x[..., 2:5], x[..., 5:]]
    for g, w, v in zip(got, want, outs, strict=True):
        np.testing.assert_array_equal(g, w)
        assert len(v.shape) == w.ndim


def test_reshape_with_shape_tensors():
    def net():
        x = pir.layers.data("x", [-1, 6])
        n = pir.layers.fill_constant([1], "int32", 3)
        return pir.layers.reshape(x, [n, -1])

    main, _, out = _build(net)
    got = pir.Executor().run(main, feed={"x": np.arange(12, dtype=np.float32).reshape(2, 6)},
                             fetch_list=[out], scope=pir.Scope())[0]
    assert got.shape == (3, 4)


def test_resize_norm_and_activation_layers():
    def net():
        x = pir.layers.data("x", [-1, 2, 3, 4])
        return [pir.layers.resize_bilinear(x, out_shape=[6, 8]),
                pir.layers.resize_nearest(x, scale=2.0),
                pir.layers.image_resize(x, out_shape=[5, 5], resample="NEAREST",
                                        align_corners=False),
                pir.layers.layer_norm(x, begin_norm_axis=2),
                pir.layers.adaptive_pool2d(x, [2, 2], "avg"),
                pir.layers.pool2d(x, global_pooling=True, pool_type="avg"),
                pir.layers.conv2d_transpose(x, 3, output_size=[7, 9], stride=2),
                pir.layers.relu6(x), pir.layers.hard_swish(x), pir.layers.hard_sigmoid(x),
                pir.layers.swish(x, 2.0), pir.layers.gelu(x, True), pir.layers.leaky_relu(x)]

    main, startup, outs = _build(net)
    assert _ops(main)[:3] == ["bilinear_interp", "nearest_interp", "nearest_interp"]
    scope = pir.Scope()
    exe = pir.Executor()
    exe.run(startup, scope=scope)
    x = rng.randn(2, 2, 3, 4).astype(np.float32)
    got = exe.run(main, feed={"x": x}, fetch_list=outs, scope=scope)
    shapes = [g.shape for g in got]
    assert shapes[:7] == [(2, 2, 6, 8), (2, 2, 6, 8), (2, 2, 5, 5), (2, 2, 3, 4),
                          (2, 2, 2, 2), (2, 2, 1, 1), (2, 3, 7, 9)]
    np.testing.assert_allclose(got[3].reshape(4, 12).mean(axis=1), 0, atol=1e-5)
    np.testing.assert_allclose(got[5][..., 0, 0], x.mean(axis=(2, 3)), rtol=1e-5)
    np.testing.assert_allclose(got[7], np.clip(x, 0, 6))


@pytest.mark.parametrize("call, message", [
    (lambda x: pir.layers.pool2d(x), "give pool_size, or global_pooling=True"),
    (lambda x: pir.layers.pool2d(x, 2, pool_type="min"), "pool_type must be 'max' or 'avg'"),
    (lambda x: pir.layers.conv2d(x, 4, 3, groups=3), r"2 input channels do not divide into "
                                                     r"groups=3"),
    (lambda x: pir.layers.conv2d(x, 4, 3, padding="FULL"), "padding must be 'SAME', 'VALID'"),
    (lambda x: pir.layers.image_resize(x), "give out_shape or scale"),
    (lambda x: pir.layers.image_resize(x, [4, 4], resample="BICUBIC"),
     "resample must be BILINEAR or NEAREST"),
    (lambda x: pir.layers.adaptive_pool2d(x, 2, require_index=True),
     "max_pool2d_with_index"),
    (lambda x: pir.layers.conv2d_transpose(x, 4), "needs filter_size or output_size"),
])
def test_layer_errors(call, message):
    with pir.program_guard(pir.Program(), pir.Program()):
        x = pir.layers.data("x", [-1, 2, 5, 5])
        with pytest.raises(pir.ProgramError, match=message):
            call(x)


@pytest.mark.parametrize("hw, short_len, want", [((6, 9), 4, (4, 6)), ((10, 5), 3, (6, 3)),
                                                 ((7, 7), 2, (2, 2))])
def test_image_resize_short_keeps_the_aspect_ratio(hw, short_len, want):
    """The short side becomes short_len; the long side scales with it, rounded (Fluid 1.7)."""
    x_value = np.random.RandomState(0).rand(1, 2, *hw).astype(np.float32)
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [1, 2, *hw], append_batch_size=False)
        short = pir.layers.image_resize_short(x, short_len)
        direct = pir.layers.image_resize(x, out_shape=list(want))
    got, ref = pir.Executor().run(main, feed={"x": x_value}, fetch_list=[short, direct])
    assert got.shape == (1, 2, *want)
    np.testing.assert_array_equal(got, ref)


def test_image_resize_short_needs_a_known_4d_shape():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [3, 8], append_batch_size=False)
        with pytest.raises(pir.ProgramError, match="must be 4-D"):
            pir.layers.image_resize_short(x, 4)
        y = pir.layers.data("y", [1, 3, -1, 8], append_batch_size=False)
        with pytest.raises(pir.ProgramError, match="H and W must be known"):
            pir.layers.image_resize_short(y, 4)

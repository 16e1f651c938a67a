"""Fluid's layers.sequence_lod (paddle_ir/layers/sequence_lod.py) in programs."""

import numpy as np

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.core.lod_tensor import LoDTensor
from tests.ops.sequence_ops.test_sequence_conv import reference_conv

rng = np.random.RandomState(3)


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


def lod(arr, lengths):
    t = LoDTensor(np.asarray(arr))
    t.set_recursive_sequence_lengths([lengths])
    return t


def test_sequence_layers_in_a_program():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        ids = layers.data("ids", [-1, 1], dtype="int64", lod_level=1)
        x = layers.data("x", [-1, 4], lod_level=1)
        rows = layers.data("rows", [-1, 4])
        enum = layers.sequence_enumerate(ids, 2, pad_value=0)
        expanded = layers.sequence_expand_as(rows, x)
        reshaped = layers.sequence_reshape(x, 2)
        sliced = layers.sequence_slice(x, layers.fill_constant([2, 1], "int64", 1),
                                       layers.fill_constant([2, 1], "int64", 1))
        scattered = layers.sequence_scatter(rows, ids, layers.cast(ids, "float32"))
    exe = pir.Executor()
    exe.run(startup)
    xv = rng.uniform(-1, 1, (5, 4)).astype(np.float32)
    feed = {"ids": lod(np.array([[1], [2], [3], [0], [1]], np.int64), [2, 3]),
            "x": lod(xv, [2, 3]), "rows": np.ones((2, 4), np.float32)}
    e, ex, rs, sl, sc = exe.run(main, feed=feed, fetch_list=[enum, expanded, reshaped, sliced,
                                                              scattered], return_numpy=False)
    np.testing.assert_array_equal(e.numpy(), [[1, 2], [2, 0], [3, 0], [0, 1], [1, 0]])
    assert ex.recursive_sequence_lengths() == [[2, 3]]
    assert rs.recursive_sequence_lengths() == [[4, 6]]
    np.testing.assert_allclose(sl.numpy(), xv[[1, 3]])
    np.testing.assert_allclose(np.asarray(sc), [[1, 2, 3, 1], [1, 2, 1, 4]])

"""The activation ops (ops/math/activation.py): forward against numpy, gradients by finite
differences."""

import math

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import ProgramError
from paddle_ir.ops.math.activation import ACTIVATIONS, ZERO_PRESERVING
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(2)


def _softplus_ref(x, beta=1.0, threshold=20.0):
    out = np.array([math.log1p(math.exp(beta * v)) / beta if beta * v <= threshold else v
                    for v in x.reshape(-1).tolist()])
    return out.reshape(x.shape)


# Written from the definitions, element by element where numpy has no ufunc for it.
REFERENCE = {
    "relu": lambda x: np.where(x > 0, x, 0),
    "sigmoid": lambda x: np.array([1 / (1 + math.exp(-v)) for v in x.reshape(-1).tolist()]
                                  ).reshape(x.shape),
    "tanh": lambda x: (np.exp(x) - np.exp(-x)) / (np.exp(x) + np.exp(-x)),
    "exp": lambda x: np.e ** x,
    "log": lambda x: np.array([math.log(v) for v in x.reshape(-1).tolist()]).reshape(x.shape),
    "sqrt": lambda x: x ** 0.5,
    "square": lambda x: x * x,
    "abs": lambda x: np.where(x < 0, -x, x),
    "sign": lambda x: (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype),
    "softplus": _softplus_ref,
    "relu6": lambda x: np.minimum(np.maximum(x, 0), 6),
    "leaky_relu": lambda x: np.where(x > 0, x, np.float32(0.02) * x),
    "hard_sigmoid": lambda x: np.minimum(np.maximum(np.float32(0.2) * x + 0.5, 0), 1),
    "hard_swish": lambda x: x * np.minimum(np.maximum(x + 3, 0), 6) / 6,
    "swish": lambda x: x / (1 + np.exp(-x)),
    "gelu": lambda x: np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2)))
                                for v in x.reshape(-1).tolist()]).reshape(x.shape),
}
POSITIVE_ONLY = {"log", "sqrt"}


def _input(name, shape=(3, 4), dtype=np.float64):
    x = rng.uniform(-2, 2, size=shape)
    if name in POSITIVE_ONLY:
        x = np.abs(x) + 0.1
    else:  # keep clear of the kinks at 0 so that finite differences are exact enough
        x = np.where(np.abs(x) < 0.05, 0.3, x)
    return x.astype(dtype)


def test_every_activation_has_a_reference():
    assert sorted(REFERENCE) == sorted(a.name for a in ACTIVATIONS)
    assert sorted(ZERO_PRESERVING) == ["abs", "gelu", "hard_swish", "leaky_relu", "relu",
                                       "relu6", "sign", "sqrt", "square", "swish", "tanh"]


@pytest.mark.parametrize("name", sorted(REFERENCE))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_forward_matches_reference(name, dtype):
    x = _input(name, dtype=dtype)
    want = REFERENCE[name](x.astype(np.float64)).astype(dtype)
    check_op(name, {"X": x}, {}, {"Out": want}, batch_unknown=True)


@pytest.mark.parametrize("name", ["relu", "square", "abs", "sign"])
def test_integer_kernels(name):
    x = np.array([[-3, 0, 2], [5, -1, 1]], np.int32)
    check_op(name, {"X": x}, {}, {"Out": REFERENCE[name](x).astype(np.int32)})


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_gradient(name):
    check_grad(name, {"X": _input(name)}, {})


def test_out_keeps_x_lod():
    x = pir.create_lod_tensor(_input("exp", (5, 2)).astype(np.float32), [[2, 3]])
    check_op("exp", {"X": x}, {}, {"Out": pir.create_lod_tensor(np.exp(x.numpy()), [[2, 3]])})


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_0d_input(name):
    x = np.array(-0.7 if name not in POSITIVE_ONLY else 0.7)
    check_op(name, {"X": x}, {}, {"Out": REFERENCE[name](x.reshape(1)).reshape(())})
    check_grad(name, {"X": x}, {})


def test_sigmoid_and_softplus_are_stable_for_large_inputs():
    x = np.array([-1000.0, -50.0, 0.0, 50.0, 1000.0], np.float32)
    out = check_op("sigmoid", {"X": x}, {}, {})["Out"][0]
    np.testing.assert_allclose(out, [0, 1.9287e-22, 0.5, 1, 1], rtol=1e-4)
    out = check_op("softplus", {"X": x}, {}, {})["Out"][0]
    np.testing.assert_allclose(out, [0, 1.9287e-22, math.log(2), 50, 1000], rtol=1e-4)


def test_softplus_beta_and_threshold():
    x = rng.uniform(-3, 3, size=(4, 5))
    attrs = {"beta": 2.0, "threshold": 3.0}
    check_op("softplus", {"X": x}, attrs, {"Out": _softplus_ref(x, 2.0, 3.0)})
    check_grad("softplus", {"X": np.where(np.abs(2 * x - 3) < 0.1, 0.0, x)}, attrs)


def test_layers_build_the_ops():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [-1, 3])
        outs = [getattr(pir.layers, name)(x) for name in sorted(REFERENCE)]
    assert [op.type for op in main.global_block().ops] == sorted(REFERENCE)
    xv = _input("log", (2, 3)).astype(np.float32)
    got = pir.Executor().run(main, feed={"x": xv}, fetch_list=outs, scope=pir.Scope())
    for name, value in zip(sorted(REFERENCE), got, strict=True):
        np.testing.assert_allclose(value, REFERENCE[name](xv.astype(np.float64)), rtol=1e-5,
                                   err_msg=name)


@pytest.mark.parametrize("name, attrs, ref", [
    ("relu6", {"threshold": 1.5}, lambda x: np.clip(x, 0, 1.5)),
    ("leaky_relu", {"alpha": 0.25}, lambda x: np.where(x > 0, x, 0.25 * x)),
    ("hard_sigmoid", {"slope": 0.5, "offset": 0.25},
     lambda x: np.clip(0.5 * x + 0.25, 0, 1)),
    ("hard_swish", {"threshold": 4.0, "scale": 5.0, "offset": 1.0},
     lambda x: x * np.clip(x + 1, 0, 4) / 5),
    ("swish", {"beta": 2.0}, lambda x: x / (1 + np.exp(-2 * x))),
    ("gelu", {"approximate": True},
     lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
])
def test_activation_attributes(name, attrs, ref):
    x = rng.uniform(-4, 4, size=(5, 6))
    x = np.where(np.abs(x) < 0.05, 0.3, x)
    x = np.where(np.abs(x - 1.5) < 0.05, 1.2, x)  # keep clear of relu6's upper kink
    x = np.where(np.abs(x + 1) < 0.05, -1.2, x)  # and hard_swish's lower one
    x = np.where(np.abs(x - 3) < 0.05, 2.8, x)  # and its upper one
    x = np.where(np.abs(0.5 * x + 0.25 - 1) < 0.05, 0.7, x)  # and hard_sigmoid's
    x = np.where(np.abs(0.5 * x + 0.25) < 0.05, 0.7, x)
    check_op(name, {"X": x}, attrs, {"Out": ref(x)})
    check_grad(name, {"X": x}, attrs)


# --- softmax ---------------------------------------------------------------------------------


def _softmax_ref(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("shape, axis", [((3, 5), -1), ((2, 3, 4), 1), ((2, 3, 4), 0), ((6,), 0)])
def test_softmax(shape, axis):
    x = rng.randn(*shape).astype(np.float32)
    want = np.exp(x.astype(np.float64))
    want = (want / want.sum(axis=axis, keepdims=True)).astype(np.float32)
    check_op("softmax", {"X": x}, {"axis": axis}, {"Out": want}, batch_unknown=True)
    check_grad("softmax", {"X": x}, {"axis": axis})


def test_softmax_is_stable():
    x = np.array([[1000.0, 1000.0, -1000.0], [-1e30, 0.0, 1e30]], np.float32)
    check_op("softmax", {"X": x}, {}, {"Out": np.array([[0.5, 0.5, 0], [0, 0, 1]], np.float32)})


def test_softmax_axis_out_of_range():
    with pir.program_guard(pir.Program(), pir.Program()):
        x = pir.layers.data("x", [-1, 3])
        with pytest.raises(pir.ProgramError, match=r"axis must be in \[-2, 2\) .* got 2"):
            pir.layers.softmax(x, axis=2)


def test_relu_of_selected_rows_stays_sparse_and_exp_falls_back_with_a_warning():
    sr = pir.SelectedRows([0, 2], np.array([[-1.0, 2.0], [3.0, -4.0]], np.float32), 3)
    want = pir.SelectedRows([0, 2], np.maximum(sr.value, 0), 3)
    check_op("relu", {"X": sr}, {}, {"Out": want})  # zero-preserving: no fallback
    with pytest.warns(UserWarning, match="densified"):
        check_op("exp", {"X": sr}, {}, {"Out": np.exp(sr.to_dense())})


# --- activations ------------------------------------------------------------------------

def test_silu_and_mish():
    x = rng.uniform(-4, 4, (3, 5)).astype("float32")
    x[0, 0] = 25.0  # above mish's threshold: softplus is taken as x
    flat = x.reshape(-1).tolist()
    silu = np.array([v / (1 + math.exp(-v)) for v in flat]).reshape(x.shape)
    mish = np.array([v * math.tanh(v if v > 20 else math.log(1 + math.exp(v)))
                     for v in flat]).reshape(x.shape)
    check_op("silu", {"X": x}, {}, {"Out": silu.astype("float32")})
    check_op("mish", {"X": x}, {}, {"Out": mish.astype("float32")})
    xg = rng.uniform(-3, 3, (2, 4))
    check_grad("silu", {"X": xg})
    check_grad("mish", {"X": xg})
    check_grad("mish", {"X": xg}, {"threshold": 1.0})


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_log_softmax(axis):
    x = rng.uniform(-5, 5, (3, 4, 2))
    e = np.exp(x)
    want = np.log(e / e.sum(axis=axis, keepdims=True))
    check_op("log_softmax", {"X": x}, {"axis": axis}, {"Out": want})
    check_grad("log_softmax", {"X": x}, {"axis": axis})
    big = np.array([[1000.0, 0.0]], np.float32)  # no overflow
    check_op("log_softmax", {"X": big}, {}, {"Out": np.array([[0.0, -1000.0]], np.float32)})
    with pytest.raises(ProgramError, match="axis must be in \\[-3, 3\\), got 3"):
        check_op("log_softmax", {"X": x}, {"axis": 3})


def test_logit():
    x = rng.uniform(0.05, 0.95, (3, 4))
    z = np.clip(x, 0.2, 0.8)
    check_op("logit", {"X": x}, {"eps": 0.2},
             {"Out": np.vectorize(lambda v: math.log(v / (1 - v)))(z)})
    check_grad("logit", {"X": rng.uniform(0.25, 0.75, (3, 4))}, {"eps": 0.2})


@pytest.mark.parametrize("name, attrs", [
    ("gelu", {"approximate": False}), ("gelu", {"approximate": True}),
    ("hard_swish", {"threshold": 6.0, "scale": 6.0, "offset": 3.0}),
    ("hard_sigmoid", {"slope": 0.2, "offset": 0.5}),
])
def test_in_buffer_kernels_on_channels_last_float32_views(name, attrs):
    """The one-buffer kernels read a strided view (a conv's NCHW view of NHWC memory), leave
    it untouched, answer in its dtype and layout, and match the textbook formula in float64."""
    kernel = next(a for a in ACTIVATIONS if a.name == name).forward
    nhwc = np.random.RandomState(3).uniform(-5, 5, (2, 5, 4, 6)).astype(np.float32)
    x = nhwc.transpose(0, 3, 1, 2)
    before = x.copy()
    out = kernel(attrs, x)
    x64 = x.astype(np.float64)
    if name == "gelu" and attrs["approximate"]:
        want = 0.5 * x64 * (1 + np.tanh(math.sqrt(2 / math.pi) * (x64 + 0.044715 * x64 ** 3)))
    elif name == "gelu":
        want = np.vectorize(lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2))))(x64)
    elif name == "hard_swish":
        want = x64 * np.minimum(np.maximum(x64 + 3, 0), 6) / 6
    else:
        want = np.minimum(np.maximum(0.2 * x64 + 0.5, 0), 1)
    assert out.dtype == np.float32 and out.shape == x.shape
    assert out.transpose(0, 2, 3, 1).flags.c_contiguous  # the layout of X kept
    np.testing.assert_array_equal(x, before)
    np.testing.assert_allclose(out, want, rtol=2e-6, atol=1e-6)

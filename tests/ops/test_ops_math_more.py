"""ops/math/unary_math.py, ops/elementwise_more.py and ops/reduce_more.py against numpy formulas
written here from the definitions (math module, element by element where numpy has none)."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from paddle_ir.ops.math.unary_math import UNARY_MATH
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(5)


def _each(fn):
    return lambda x, a: np.vectorize(lambda v: float(fn(v, a)), otypes=[np.float64])(x)


SELU_S, SELU_A = 1.0507009873554805, 1.6732632423543772
REFERENCE = {
    "floor": (_each(lambda v, a: math.floor(v)), {}),
    "ceil": (_each(lambda v, a: math.ceil(v)), {}),
    "round": (_each(lambda v, a: math.copysign(math.floor(abs(v) + 0.5), v)), {}),
    "cos": (_each(lambda v, a: math.cos(v)), {}),
    "sin": (_each(lambda v, a: math.sin(v)), {}),
    "acos": (_each(lambda v, a: math.acos(v)), {}),
    "asin": (_each(lambda v, a: math.asin(v)), {}),
    "atan": (_each(lambda v, a: math.atan(v)), {}),
    "rsqrt": (_each(lambda v, a: 1 / math.sqrt(v)), {}),
    "reciprocal": (_each(lambda v, a: 1 / v), {}),
    "erf": (_each(lambda v, a: math.erf(v)), {}),
    "logsigmoid": (_each(lambda v, a: math.log(1 / (1 + math.exp(-v)))), {}),
    "softsign": (_each(lambda v, a: v / (1 + abs(v))), {}),
    "tanh_shrink": (_each(lambda v, a: v - math.tanh(v)), {}),
    "softshrink": (_each(lambda v, a: v - 0.3 if v > 0.3 else v + 0.3 if v < -0.3 else 0.0),
                   {"lambda": 0.3}),
    "hard_shrink": (_each(lambda v, a: v if abs(v) > 0.4 else 0.0), {"threshold": 0.4}),
    "thresholded_relu": (_each(lambda v, a: v if v > 0.2 else 0.0), {"threshold": 0.2}),
    "elu": (_each(lambda v, a: v if v > 0 else 0.7 * (math.exp(v) - 1)), {"alpha": 0.7}),
    "selu": (_each(lambda v, a: SELU_S * (v if v > 0 else SELU_A * (math.exp(v) - 1))), {}),
    "brelu": (_each(lambda v, a: min(max(v, -0.5), 1.0)), {"t_min": -0.5, "t_max": 1.0}),
    "soft_relu": (_each(lambda v, a: math.log(1 + math.exp(min(max(v, -1.2), 1.2)))),
                  {"threshold": 1.2}),
    "stanh": (_each(lambda v, a: 1.7159 * math.tanh(0.67 * v)), {}),
    "pow": (_each(lambda v, a: v ** 2.5), {"factor": 2.5}),
}
POSITIVE = {"rsqrt", "pow"}
UNIT = {"acos", "asin"}
KINKS = {"softshrink": 0.3, "hard_shrink": 0.4, "thresholded_relu": 0.2, "brelu": 1.0,
         "soft_relu": 1.2}


def _x(name, dtype=np.float64):
    x = rng.uniform(-2, 2, (3, 4))
    if name in POSITIVE:
        x = np.abs(x) + 0.2
    if name in UNIT:
        x = x * 0.4
    if name in ("floor", "ceil", "round"):
        x = np.where(np.abs(x - np.round(x)) < 0.05, x + 0.2, x)
        x = np.where(np.abs(np.abs(x - np.floor(x)) - 0.5) < 0.01, x + 0.1, x)
    kink = KINKS.get(name, 0.0)
    for k in {kink, -kink, 0.0, -0.5}:
        x = np.where(np.abs(x - k) < 0.05, x + 0.13, x)
    return x.astype(dtype)


def test_every_row_has_a_reference():
    assert sorted(REFERENCE) == sorted(a.name for a in UNARY_MATH)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_unary_forward_and_grad(name):
    fn, attrs = REFERENCE[name]
    x = _x(name)
    check_op(name, {"X": x}, attrs, {"Out": fn(x, attrs)}, batch_unknown=True)
    x32 = x.astype(np.float32)
    check_op(name, {"X": x32}, attrs, {"Out": fn(x32.astype(np.float64), attrs).astype(
        np.float32)}, atol=1e-5)
    check_grad(name, {"X": x}, attrs)


BINARY = {
    "elementwise_max": np.maximum,
    "elementwise_min": np.minimum,
    "elementwise_pow": lambda a, b: a ** b,
}


@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("axis, y_shape", [(-1, (3, 4)), (1, (4,)), (0, (3, 1))])
def test_binary_forward_and_grad(op, axis, y_shape):
    x = rng.uniform(0.5, 2, (3, 4, 2)) if axis != -1 else rng.uniform(0.5, 2, (2, 3, 4))
    if axis == 1:
        x = rng.uniform(0.5, 2, (2, 4, 3))
    y = rng.uniform(0.5, 2, y_shape)
    shape = [1] * x.ndim
    shape[(x.ndim - len(y_shape)) if axis == -1 else axis: ((x.ndim - len(y_shape)) if axis == -1
                                                          else axis) + len(y_shape)] = y_shape
    want = BINARY[op](x, y.reshape(shape))
    check_op(op, {"X": x, "Y": y}, {"axis": axis}, {"Out": want})
    check_grad(op, {"X": x, "Y": y}, {"axis": axis}, wrt=("X", "Y"))


def test_mod_and_floordiv_follow_python():
    x = np.array([[7, -7, 7, -7, 0]], dtype=np.int64)
    y = np.array([[3, 3, -3, -3, 5]], dtype=np.int64)
    pairs = list(zip(x[0], y[0], strict=True))
    check_op("elementwise_mod", {"X": x, "Y": y}, {},
             {"Out": np.array([[int(a) % int(b) for a, b in pairs]], dtype=np.int64)})
    check_op("elementwise_floordiv", {"X": x, "Y": y}, {},
             {"Out": np.array([[int(a) // int(b) for a, b in pairs]], dtype=np.int64)})
    xf = np.array([5.5, -5.5], dtype=np.float32)
    check_op("elementwise_mod", {"X": xf, "Y": np.array([2.0, 2.0], np.float32)}, {},
             {"Out": np.array([1.5, 0.5], np.float32)})


def test_binary_dtype_mismatch_fails():
    with pytest.raises(ProgramError, match="X and Y must have the same dtype"):
        check_op("elementwise_max", {"X": np.ones(2), "Y": np.ones(2, np.float32)})


@pytest.mark.parametrize("op, fn", [("reduce_max", np.max), ("reduce_min", np.min),
                                    ("reduce_prod", np.prod)])
@pytest.mark.parametrize("dim, keep", [([1], False), ([0, 2], True), ([-1], False)])
def test_reduce_forward_and_grad(op, fn, dim, keep):
    x = rng.uniform(0.5, 1.5, (2, 3, 4))
    check_op(op, {"X": x}, {"dim": dim, "keep_dim": keep},
             {"Out": fn(x, axis=tuple(dim), keepdims=keep)})
    check_grad(op, {"X": x}, {"dim": dim, "keep_dim": keep})


def test_reduce_all_axes_and_prod_grad_with_zeros():
    x = rng.uniform(0.5, 1.5, (3, 4))
    x[1, 2] = 0.0
    check_op("reduce_prod", {"X": x}, {"reduce_all": True}, {"Out": np.array([np.prod(x)])})
    check_grad("reduce_prod", {"X": x}, {"dim": [1]})
    check_grad("reduce_prod", {"X": x}, {"reduce_all": True})


def test_reduce_max_ties_all_get_the_gradient():
    x = np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]])
    out = check_op("reduce_max", {"X": x}, {"dim": [1]}, {"Out": np.array([3.0, 2.0])})
    assert out


@pytest.mark.parametrize("op, fn", [("reduce_all", np.all), ("reduce_any", np.any)])
def test_reduce_all_any(op, fn):
    x = rng.uniform(0, 1, (3, 4, 2)) > 0.3
    check_op(op, {"X": x}, {"dim": [1]}, {"Out": fn(x, axis=1)})
    check_op(op, {"X": x}, {"reduce_all": True}, {"Out": np.array([fn(x)])})

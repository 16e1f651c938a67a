"""mul, matmul and matmul_v2 (ops/math/mul.py, matmul.py, matmul_v2.py)."""

import numpy as np
import pytest

import paddle_ir as pir
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(1)


@pytest.mark.parametrize("x_shape, y_shape, xn, yn", [
    ((4, 3), (3, 5), 1, 1),
    ((2, 3, 4), (12, 5), 1, 1),      # X flattened to [2, 12]
    ((2, 3, 4), (4, 5), 2, 1),       # X flattened to [6, 4]
    ((2, 3, 4), (2, 2, 5, 2), 2, 2),  # Y flattened to [4, 10]
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mul_matches_numpy(x_shape, y_shape, xn, yn, dtype):
    x = rng.randn(*x_shape).astype(dtype)
    y = rng.randn(*y_shape).astype(dtype)
    rows, inner = int(np.prod(x_shape[:xn])), int(np.prod(x_shape[xn:]))
    want = np.einsum("ik,kj->ij", x.reshape(rows, inner), y.reshape(inner, -1))
    want = want.reshape(x_shape[:xn] + y_shape[yn:]).astype(dtype)
    check_op("mul", {"X": x, "Y": y}, {"x_num_col_dims": xn, "y_num_col_dims": yn},
             {"Out": want}, batch_unknown=True, rtol=1e-5, atol=1e-5)


def test_mul_integers_and_lod():
    x = pir.create_lod_tensor(np.arange(6, dtype=np.int64).reshape(3, 2), [[1, 2]])
    y = np.array([[1, 2], [3, 4]], np.int64)
    want = pir.create_lod_tensor(x.numpy() @ y, [[1, 2]])
    check_op("mul", {"X": x, "Y": y}, {}, {"Out": want})


@pytest.mark.parametrize("x_shape, y_shape, xn, yn", [
    ((4, 3), (3, 5), 1, 1), ((2, 3, 4), (4, 5), 2, 1), ((2, 3, 2), (6, 2, 2), 1, 1)])
def test_mul_gradients(x_shape, y_shape, xn, yn):
    check_grad("mul", {"X": rng.randn(*x_shape), "Y": rng.randn(*y_shape)},
               {"x_num_col_dims": xn, "y_num_col_dims": yn}, wrt=("X", "Y"))


def test_mul_mismatch_fails_at_build_time_naming_the_line():
    with pir.program_guard(pir.Program(), pir.Program()):
        x = pir.layers.data("x", [32, 784], append_batch_size=False)
        w = pir.layers.data("w", [100, 10], append_batch_size=False)
        with pytest.raises(pir.ProgramError, match=(
                r"(?s)\[ShapeInferenceError\] block 0, op #0 mul .*"
                r"X.shape\[1\] must equal Y.shape\[0\], but got X.shape=\[32, 784\] and "
                r"Y.shape=\[100, 10\]\n.*op created at tests/ops/math/test_matmul.py:\d+")):
            pir.layers.mul(x, w)


def test_mul_mismatch_names_the_flattening():
    with pir.program_guard(pir.Program(), pir.Program()):
        x = pir.layers.data("x", [-1, 4, 5])
        w = pir.layers.data("w", [21, 3], append_batch_size=False)
        with pytest.raises(pir.ProgramError, match=(
                r"X.shape=\[-1, 20\] and Y.shape=\[21, 3\] \(flattened from "
                r"X.shape=\[-1, 4, 5\] at x_num_col_dims=1")):
            pir.layers.mul(x, w)


def test_mul_num_col_dims_must_fit_the_rank():
    with pir.program_guard(pir.Program(), pir.Program()):
        x = pir.layers.data("x", [4, 5], append_batch_size=False)
        w = pir.layers.data("w", [5, 3], append_batch_size=False)
        with pytest.raises(pir.ProgramError,
                           match=r"x_num_col_dims must be in \[1, rank of X\) = \[1, 2\), got 2"):
            pir.layers.mul(x, w, x_num_col_dims=2)


# --- matmul ----------------------------------------------------------------------------------


def _op(a, transpose):
    return np.swapaxes(a, -1, -2) if transpose and a.ndim > 1 else a


@pytest.mark.parametrize("x_shape, y_shape, tx, ty", [
    ((3, 4), (4, 5), False, False),
    ((4, 3), (4, 5), True, False),
    ((3, 4), (5, 4), False, True),
    ((4, 3), (5, 4), True, True),
    ((2, 3, 4), (2, 4, 5), False, False),
    ((2, 1, 3, 4), (5, 2, 4), False, True),   # batch dims broadcast: [2, 5]
    ((3, 4), (2, 4, 5), False, False),        # a matrix against a stack
    ((4,), (4, 5), False, False),              # 1-D X: a row, dropped from Out
    ((2, 3, 4), (4,), False, False),           # 1-D Y: a column, dropped from Out
    ((4,), (4,), False, False),                # dot product: Out [1] (Fluid 1.x)
])
@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_matmul_matches_numpy(x_shape, y_shape, tx, ty, alpha):
    x = rng.randn(*x_shape).astype(np.float32)
    y = rng.randn(*y_shape).astype(np.float32)
    want = (alpha * np.matmul(_op(x, tx), _op(y, ty))).astype(np.float32)
    want = want.reshape(1) if want.ndim == 0 else want
    check_op("matmul", {"X": x, "Y": y}, {"transpose_X": tx, "transpose_Y": ty, "alpha": alpha},
             {"Out": np.asarray(want)}, batch_unknown=True, rtol=1e-5, atol=1e-5)


def test_matmul_transposed_vectors_make_an_outer_product():
    # Paddle's rule: a transposed 1-D X is a column [K, 1], a transposed 1-D Y a row [1, K].
    x, y = rng.randn(3).astype(np.float32), rng.randn(4).astype(np.float32)
    check_op("matmul", {"X": x, "Y": y}, {"transpose_X": True, "transpose_Y": True},
             {"Out": np.outer(x, y).astype(np.float32)}, atol=1e-6)


@pytest.mark.parametrize("x_shape, y_shape, tx, ty", [
    ((3, 4), (4, 5), False, False),
    ((4, 3), (5, 4), True, True),
    ((2, 1, 3, 4), (5, 2, 4), False, True),
    ((3, 4), (2, 4, 5), False, False),
    ((4,), (2, 4, 5), False, False),
    ((2, 3, 4), (4,), False, False),
    ((4,), (4,), False, False),
    ((3,), (4,), True, True),
])
def test_matmul_gradients(x_shape, y_shape, tx, ty):
    check_grad("matmul", {"X": rng.randn(*x_shape), "Y": rng.randn(*y_shape)},
               {"transpose_X": tx, "transpose_Y": ty, "alpha": 1.5}, wrt=("X", "Y"))


@pytest.mark.parametrize("x_shape, y_shape, kwargs, message", [
    ([3, 4], [5, 6], {}, r"op\(X\).shape\[-1\]=4 but op\(Y\).shape\[-2\]=5"),
    ([3, 4], [3, 5], {"transpose_y": True}, r"op\(X\).shape\[-1\]=4 but op\(Y\).shape\[-2\]=5 "
                                             r".*transpose_Y=True"),
    ([2, 3, 4], [3, 4, 5], {}, r"batch dims \[2\] of X and \[3\] of Y do not broadcast"),
])
def test_matmul_errors(x_shape, y_shape, kwargs, message):
    with pir.program_guard(pir.Program(), pir.Program()):
        x = pir.layers.data("x", x_shape, append_batch_size=False)
        y = pir.layers.data("y", y_shape, append_batch_size=False)
        with pytest.raises(pir.ProgramError, match=message):
            pir.layers.matmul(x, y, **kwargs)


@pytest.mark.parametrize("xs, ys, tx, ty", [
    ((3, 4), (4, 5), False, False), ((2, 3, 4), (2, 5, 4), False, True),
    ((4, 3), (2, 4, 5), True, False), ((4,), (4, 5), True, False), ((3, 4), (4,), False, True),
    ((2, 1, 3, 4), (5, 4, 2), False, False), ((4,), (4,), False, False)])
def test_matmul_v2(xs, ys, tx, ty):
    x, y = rng.randn(*xs), rng.randn(*ys)
    ox = np.swapaxes(x, -1, -2) if tx and x.ndim > 1 else x
    oy = np.swapaxes(y, -1, -2) if ty and y.ndim > 1 else y
    want = np.einsum("...ij,...jk->...ik", ox if ox.ndim > 1 else ox[None],
                     oy if oy.ndim > 1 else oy[:, None])
    if x.ndim == 1:
        want = want[..., 0, :]
    if y.ndim == 1:
        want = want[..., 0]
    want = want.reshape(1) if want.ndim == 0 else want  # a dot product is [1], as matmul's
    attrs = {"trans_x": tx, "trans_y": ty}
    check_op("matmul_v2", {"X": x, "Y": y}, attrs, {"Out": want}, atol=1e-10)
    check_grad("matmul_v2", {"X": x, "Y": y}, attrs, wrt=("X", "Y"))


def test_matmul_v2_mismatch_names_its_attributes():
    with pytest.raises(pir.ProgramError, match=r"op\(X\).shape\[-1\]=4 but "
                                               r"op\(Y\).shape\[-2\]=5 .*trans_y=True"):
        check_op("matmul_v2", {"X": np.zeros((3, 4)), "Y": np.zeros((4, 5))},
                 {"trans_y": True})


def test_matmul_head_number_other_than_one_is_refused():
    with pytest.raises(pir.ProgramError, match=r"head_number=2 \(Paddle's multi-head matmul\) "
                                               r"is not supported"):
        check_op("matmul", {"X": np.zeros((3, 4)), "Y": np.zeros((4, 5))}, {"head_number": 2})

"""csr_t_dot (X^T @ Y as SELECTED_ROWS) equals scipy's X.T @ Y on the touched columns, exactly."""

import numpy as np
import pytest

from paddle_ir.core.csr import CSRTensor
from paddle_ir.ops.nn.sparse_dot import csr_t_dot


@pytest.mark.parametrize("seed", range(40))
def test_csr_t_dot_adds_in_scipys_order(seed):
    rng = np.random.default_rng(seed)
    m, k, n = int(rng.integers(0, 30)), int(rng.integers(1, 50)), int(rng.integers(1, 4))
    indptr = np.concatenate([[0], np.cumsum(rng.integers(0, 8, m))]).astype(np.int64)
    indices = rng.integers(0, k, indptr[-1])  # a column may repeat within a row
    x_dtype, y_dtype = rng.choice([np.float32, np.float64], 2)
    x = CSRTensor(rng.standard_normal(indptr[-1]).astype(x_dtype), indices, indptr, (m, k))
    y = rng.standard_normal((m, n)).astype(y_dtype)
    got = csr_t_dot(x, y)
    want = np.asarray(x.to_scipy().T @ y)
    touched = np.unique(indices)
    np.testing.assert_array_equal(got.rows, touched)
    assert got.height == k and got.value.dtype == np.result_type(x_dtype, y_dtype)
    np.testing.assert_array_equal(got.value, want[touched])


@pytest.mark.parametrize("transpose_x", [False, True])
def test_sparse_dot_against_scipy_and_its_gradient(transpose_x):
    """Out = X @ Y (or X^T @ Y, SELECTED_ROWS); dY = X^T @ dOut (or X @ dOut) against
    central differences. X is sparse features: it has no gradient."""
    from tests.op_test import check_grad, check_op
    rng = np.random.default_rng(5)
    indptr = np.array([0, 2, 2, 5], np.int64)
    x = CSRTensor(rng.standard_normal(5), np.array([0, 3, 1, 3, 2], np.int64), indptr, (3, 4))
    y = rng.standard_normal((3 if transpose_x else 4, 2))
    dense = x.to_scipy().toarray()
    want = dense.T @ y if transpose_x else dense @ y
    out = check_op("sparse_dot", {"X": x, "Y": y}, {"transpose_x": transpose_x})["Out"][0]
    got = out.to_dense() if transpose_x else np.asarray(out)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    check_grad("sparse_dot", {"X": x, "Y": y}, {"transpose_x": transpose_x}, wrt=("Y",),
               expect_sparse=() if transpose_x else ("Y",))

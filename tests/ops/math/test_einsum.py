"""einsum against sums written out here; its shape rule at build time; and an op whose
duplicable outputs (InnerCache, XShape) are left unbound, as saved inference models do."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from paddle_ir.ops.math.einsum import output_shape
from tests.op_test import check_op

rng = np.random.RandomState(97)


def test_batched_matmul_and_transpose():
    a, b = rng.uniform(-1, 1, (2, 3, 4)), rng.uniform(-1, 1, (2, 4, 5))
    want = np.array([[[sum(a[n, i, k] * b[n, k, j] for k in range(4)) for j in range(5)]
                      for i in range(3)] for n in range(2)])
    check_op("einsum", {"Operands": [("a", a), ("b", b)]}, {"equation": "bij,bjk->bik"},
             {"Out": want}, outputs={"Out": 1})
    check_op("einsum", {"Operands": [("a", a)]}, {"equation": "nij->jni"},
             {"Out": np.array([[[a[n, i, j] for i in range(3)] for n in range(2)]
                               for j in range(4)])}, outputs={"Out": 1})


def test_implicit_output_ellipsis_and_caches():
    x, v = rng.uniform(-1, 1, (2, 3, 4)), rng.uniform(-1, 1, 4)
    want = np.array([[sum(x[n, i, j] * v[j] for j in range(4)) for i in range(3)]
                     for n in range(2)])
    got = check_op("einsum", {"Operands": [("x", x), ("v", v)]}, {"equation": "...j,j"},
                   {"Out": want}, outputs={"Out": 1, "InnerCache": 2, "XShape": 2})
    assert [s.shape for s in got["XShape"]] == [(0, 2, 3, 4), (0, 4)]
    m = rng.uniform(-1, 1, (3, 3))
    check_op("einsum", {"Operands": [("m", m)]}, {"equation": "ii"},
             {"Out": np.array(m[0, 0] + m[1, 1] + m[2, 2])}, outputs={"Out": 1})


def test_shape_rule():
    assert output_shape("bij,bjk->bik", [(-1, 3, 4), (-1, 4, 5)]) == [-1, 3, 5]
    assert output_shape("...ij,...jk", [(2, 1, 3, 4), (7, 4, 5)]) == [2, 7, 3, 5]
    assert output_shape("ij,jk", [(2, 3), (3, 4)]) == [2, 4]
    a, b = rng.uniform(size=(2, 3)), rng.uniform(size=(4, 5))
    with pytest.raises(ProgramError, match="subscript 'j' is 3 in one operand and 4"):
        check_op("einsum", {"Operands": [("a", a), ("b", b)]}, {"equation": "ij,jk->ik"},
                 outputs={"Out": 1})
    with pytest.raises(ProgramError, match="2 operand terms, but 1 Operands"):
        check_op("einsum", {"Operands": [("a", a)]}, {"equation": "ij,jk"},
                 outputs={"Out": 1})
    with pytest.raises(ProgramError, match="term 'ijk' does not fit an operand of shape"):
        check_op("einsum", {"Operands": [("a", a)]}, {"equation": "ijk"}, outputs={"Out": 1})

"""The linear-algebra ops (ops/math/linalg.py: addmm mv dot diag_v2 trace kron bmm p_norm)
and, in one test with addmm and mv, atan2 and lerp (ops/math/binary.py)."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(127)


def test_addmm_mv_atan2_lerp():
    inp, x, y = rng.uniform(-1, 1, 4), rng.uniform(-1, 1, (3, 2)), rng.uniform(-1, 1, (2, 4))
    want = np.array([[0.5 * inp[j] + 2 * sum(x[i, k] * y[k, j] for k in range(2))
                      for j in range(4)] for i in range(3)])
    check_op("addmm", {"Input": inp, "X": x, "Y": y}, {"Beta": 0.5, "Alpha": 2.0},
             {"Out": want})
    v = rng.uniform(-1, 1, 2)
    check_op("mv", {"X": x, "Vec": v}, {}, {"Out": np.array([x[i] @ v for i in range(3)])})
    a, b = rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, 4)
    check_op("atan2", {"X1": a, "X2": b}, {},
             {"Out": np.array([[math.atan2(a[i, j], b[j]) for j in range(4)]
                               for i in range(3)])})
    w = rng.uniform(0, 1, (3, 1))
    check_op("lerp", {"X": a, "Y": b, "Weight": w}, {}, {"Out": a + w * (b - a)})
    with pytest.raises(ProgramError, match="X and Vec must be \\[M, N\\] and \\[N\\]"):
        check_op("mv", {"X": x, "Vec": inp})


def test_dot_and_arg_min():
    x, y = rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, (3, 4))
    want = np.array([sum(x[i, k] * y[i, k] for k in range(4)) for i in range(3)])
    check_op("dot", {"X": x, "Y": y}, {}, {"Out": want})
    check_op("dot", {"X": x[0], "Y": y[0]}, {}, {"Out": np.array(want[0])})
    check_grad("dot", {"X": x, "Y": y}, wrt=("X", "Y"))
    with pytest.raises(ProgramError, match="X and Y must share a 1-D or 2-D shape"):
        check_op("dot", {"X": x, "Y": y[0]})
    z = np.array([[3, 1, 1], [0, 5, -2]], np.int64)
    check_op("arg_min", {"X": z}, {"axis": 1}, {"Out": np.array([1, 2], np.int64)})
    check_op("arg_min", {"X": z}, {"axis": 0, "keepdims": True, "dtype": 2},
             {"Out": np.array([[1, 0, 1]], np.int32)})
    check_op("arg_min", {"X": z}, {"flatten": True}, {"Out": np.array(5, np.int64)})


def test_diag_v2_and_trace():
    v = rng.uniform(-1, 1, 3)
    want = np.full((4, 4), 9.0)
    for i in range(3):
        want[i, i + 1] = v[i]
    check_op("diag_v2", {"X": v}, {"offset": 1, "padding_value": 9.0}, {"Out": want})
    m = rng.uniform(-1, 1, (3, 5))
    check_op("diag_v2", {"X": m}, {"offset": -1}, {"Out": np.array([m[1, 0], m[2, 1]])})
    check_op("diag_v2", {"X": m}, {"offset": 3}, {"Out": np.array([m[0, 3], m[1, 4]])})
    t = rng.uniform(-1, 1, (2, 3, 4))
    want_t = np.array([[sum(t[i, j, j + 1] for j in range(3) if j + 1 < 4)] for i in range(2)])
    check_op("trace", {"Input": t}, {"offset": 1, "axis1": 1, "axis2": 2},
             {"Out": want_t[:, 0]})
    check_grad("trace", {"Input": t}, {"offset": -1, "axis1": 2, "axis2": 0},
               wrt=("Input",))
    with pytest.raises(ProgramError, match="axis1 and axis2 must differ"):
        check_op("trace", {"Input": t}, {"axis1": 1, "axis2": -2})
    with pytest.raises(ProgramError, match="X must be 1-D or 2-D"):
        check_op("diag_v2", {"X": t})


def test_kron():
    x, y = rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, (4,))
    want = np.empty((2, 12))
    for i in range(2):
        for j in range(3):
            for k in range(4):
                want[i, j * 4 + k] = x[i, j] * y[k]
    check_op("kron", {"X": x, "Y": y}, {}, {"Out": want})
    check_grad("kron", {"X": x, "Y": rng.uniform(-1, 1, (2, 2))}, wrt=("X", "Y"))


# --- p_norm, bmm, tril_triu, unbind, meshgrid, fill_zeros_like --------------------------

@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, math.inf, -math.inf, 0.0])
def test_p_norm(p):
    x = rng.uniform(-2, 2, (3, 4))
    x[1, 2] = 0.0
    cols = [x[:, j] for j in range(4)]
    if p == 0:
        want = [float(np.count_nonzero(c)) for c in cols]
    elif math.isinf(p):
        want = [(max if p > 0 else min)(abs(v) for v in c) for c in cols]
    else:
        want = [sum(abs(v) ** p for v in c) ** (1 / p) for c in cols]
    check_op("p_norm", {"X": x}, {"porder": p, "axis": 0}, {"Out": np.array(want)})
    check_op("p_norm", {"X": x}, {"porder": p, "axis": 0, "keepdim": True},
             {"Out": np.array(want)[None]})
    if p not in (0.0, 1.0):
        check_grad("p_norm", {"X": rng.uniform(0.5, 2, (3, 4)) * rng.choice([-1, 1], (3, 4))},
                   {"porder": p, "axis": 1})


def test_p_norm_asvector():
    x = rng.uniform(-1, 1, (2, 3))
    check_op("p_norm", {"X": x}, {"asvector": True}, {"Out": np.array(math.sqrt((x * x).sum()))})


def test_bmm():
    x, y = rng.uniform(-1, 1, (2, 3, 4)), rng.uniform(-1, 1, (2, 4, 5))
    want = np.array([[[sum(x[b, i, k] * y[b, k, j] for k in range(4)) for j in range(5)]
                      for i in range(3)] for b in range(2)])
    check_op("bmm", {"X": x, "Y": y}, {}, {"Out": want})
    check_grad("bmm", {"X": x, "Y": y}, wrt=("X", "Y"))
    with pytest.raises(ProgramError, match="X.shape\\[2\\] and Y.shape\\[1\\] must agree"):
        check_op("bmm", {"X": x, "Y": x})

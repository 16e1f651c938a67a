"""match_matrix_tensor (+ grad) against an einsum reference, one sequence pair at a time.

The reference is the formula of Paddle's match_matrix_tensor_op.cc,
Out_b[t, i, j] = X_b[i] @ W[:, t, :] @ Y_b[j], written with one einsum per
pair; the op computes X @ W once for all rows. Paddle 3.3.1's own results
(forward and gradients) are in tests/fixtures/paddle/search_ops, made by
tools/make_paddle_fixtures.py.
"""

import json

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import KernelError, ShapeInferenceError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.nn.match_matrix_tensor import match_matrix_tensor_grad_kernel
from tests.op_test import check_grad, check_op
from tests.paddle_helpers import FIXTURES

PADDLE_CASES = FIXTURES / "search_ops" / "cases.npz"


def ref_match(x, y, w, len_l, len_r):
    out, lod, lo_l, lo_r = [], [0], 0, 0
    for n_l, n_r in zip(len_l, len_r, strict=True):
        block = np.einsum("ia,atb,jb->tij", x[lo_l:lo_l + n_l], w, y[lo_r:lo_r + n_r])
        out.append(block.reshape(-1))
        lod.append(lod[-1] + block.size)
        lo_l, lo_r = lo_l + n_l, lo_r + n_r
    return np.concatenate(out).reshape(-1, 1), lod


def make_inputs(len_l, len_r, h, dim_t, dtype=np.float64, seed=0):
    rng = np.random.RandomState(seed)
    return {
        "X": pir.create_lod_tensor(rng.uniform(-1, 1, (sum(len_l), h)).astype(dtype), [len_l]),
        "Y": pir.create_lod_tensor(rng.uniform(-1, 1, (sum(len_r), h)).astype(dtype), [len_r]),
        "W": rng.uniform(-1, 1, (h, dim_t, h)).astype(dtype),
    }


@pytest.mark.parametrize("len_l, len_r, h, dim_t", [
    ([2, 3], [4, 1], 3, 2),
    ([1, 0, 4], [2, 3, 2], 2, 3),  # an empty left sequence gives an empty match matrix
    ([3], [3], 4, 1),
])
def test_matches_the_reference(len_l, len_r, h, dim_t):
    inputs = make_inputs(len_l, len_r, h, dim_t)
    want, lod = ref_match(np.asarray(inputs["X"]), np.asarray(inputs["Y"]), inputs["W"],
                          len_l, len_r)
    result = check_op("match_matrix_tensor", inputs, {"dim_t": dim_t})
    got = result["Out"][0]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    assert got.lod() == [lod]
    tmp = np.asarray(inputs["X"]) @ inputs["W"].reshape(h, -1)
    np.testing.assert_allclose(result["Tmp"][0].numpy(), tmp.reshape(-1, 1), atol=1e-12)


def test_float32():
    inputs = make_inputs([2, 2], [3, 1], 5, 2, dtype=np.float32, seed=2)
    want, lod = ref_match(*(np.asarray(inputs[s], np.float64) for s in "XYW"), [2, 2], [3, 1])
    check_op("match_matrix_tensor", inputs, {"dim_t": 2},
             {"Out": pir.create_lod_tensor(want.astype(np.float32), [np.diff(lod).tolist()])},
             atol=1e-5)


@pytest.mark.parametrize("len_l, len_r, dim_t", [([2, 3], [4, 1], 2), ([1, 0, 2], [2, 3, 1], 1)])
def test_gradient(len_l, len_r, dim_t):
    check_grad("match_matrix_tensor", make_inputs(len_l, len_r, 3, dim_t, seed=5),
               {"dim_t": dim_t}, wrt=("X", "Y", "W"), out_slot="Out")


def test_rejects_mismatched_shapes():
    inputs = make_inputs([2], [2], 3, 2)
    with pytest.raises(ShapeInferenceError, match=r"W must be \[X.shape\[1\], dim_t, "
                                                  r"Y.shape\[1\]\] = \[3, 3, 3\], got \[3, 2, 3\]"):
        check_op("match_matrix_tensor", inputs, {"dim_t": 3})
    inputs["Y"] = pir.create_lod_tensor(np.zeros((2, 4)), [[2]])
    with pytest.raises(ShapeInferenceError, match=r"X and Y must have the same width h"):
        check_op("match_matrix_tensor", inputs, {"dim_t": 2})
    inputs = make_inputs([2], [2], 3, 2)
    inputs["Y"] = np.zeros((2, 3))
    with pytest.raises(ShapeInferenceError, match=r"Input\(Y\) of match_matrix_tensor"):
        check_op("match_matrix_tensor", inputs, {"dim_t": 2})


def test_rejects_different_pair_counts_and_a_deeper_lod():
    inputs = make_inputs([2, 1], [3], 2, 1)
    with pytest.raises(KernelError, match=r"same number of sequences .* got 2 and 1"):
        check_op("match_matrix_tensor", inputs, {"dim_t": 1})
    inputs = make_inputs([3], [3], 2, 1)
    inputs["X"] = pir.create_lod_tensor(np.zeros((3, 2)), [[2], [1, 2]])
    with pytest.raises(KernelError, match=r"X's first LoD level must end at its 3 rows"):
        check_op("match_matrix_tensor", inputs, {"dim_t": 1})


def test_matches_paddle_forward_and_gradients():
    case = np.load(PADDLE_CASES, allow_pickle=False)
    attrs = json.loads(str(case["attrs"]))
    inputs = {"X": pir.create_lod_tensor(case["in/X"], [case["in/X.lod"].tolist()]),
              "Y": pir.create_lod_tensor(case["in/Y"], [case["in/Y.lod"].tolist()]),
              "W": case["in/W"]}
    result = check_op("match_matrix_tensor", inputs, attrs, atol=1e-6)
    out = result["Out"][0]
    np.testing.assert_allclose(out.numpy(), case["out/Out"], atol=1e-6)
    assert out.lod() == [case["out/Out.lod"].tolist()]
    np.testing.assert_allclose(result["Tmp"][0].numpy(), case["out/Tmp"], atol=1e-6)
    grads = match_matrix_tensor_grad_kernel(
        attrs, inputs["X"], inputs["Y"], LoDTensor.unchecked(case["in/W"]),
        case["out/Tmp"], case["in/dOut"])
    for slot, got in zip(("X@GRAD", "Y@GRAD", "W@GRAD"), grads, strict=True):
        np.testing.assert_allclose(got.numpy(), case[f"out/{slot}"], atol=1e-5, err_msg=slot)

"""sum: dense, SelectedRows and mixed inputs; kernel selection over a duplicable key slot."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.kinds import STYPE_SELECTED_ROWS as SELECTED_ROWS
from paddle_ir.ops.registry import DENSE
from tests.op_test import build_one_op, check_grad, check_op

rng = np.random.RandomState(0)
SR_TYPE = pir.VarType.SELECTED_ROWS


def sr(rows, height=6, width=3, dtype=np.float32):
    rows = np.asarray(rows, np.int64)
    return pir.SelectedRows(rows, rng.rand(rows.size, width).astype(dtype), height)


def test_dense_inputs_add():
    xs = [rng.rand(4, 3).astype(np.float32) for _ in range(3)]
    check_op("sum", {"X": [(f"x{i}", x) for i, x in enumerate(xs)]}, {},
             {"Out": xs[0] + xs[1] + xs[2]})


def test_integer_inputs_add():
    xs = [np.arange(6, dtype=np.int64).reshape(2, 3), np.full((2, 3), 7, np.int64)]
    check_op("sum", {"X": [("a", xs[0]), ("b", xs[1])]}, {}, {"Out": xs[0] + xs[1]})


def test_all_selected_rows_give_merged_selected_rows():
    # duplicate rows within and across inputs, an empty input, the last row height - 1
    a, b, c = sr([5, 1, 5]), sr([]), sr([0, 5, 1, 1])
    dense = a.to_dense() + b.to_dense() + c.to_dense()
    want_rows = np.array([0, 1, 5])
    want = pir.SelectedRows(want_rows, dense[want_rows], 6)
    out = check_op("sum", {"X": [("a", a), ("b", b), ("c", c)]}, {}, {"Out": want})
    assert isinstance(out["Out"][0], pir.SelectedRows)


def test_all_empty_selected_rows():
    out = check_op("sum", {"X": [("a", sr([])), ("b", sr([]))]}, {},
                   {"Out": pir.SelectedRows(np.zeros(0, np.int64),
                                            np.zeros((0, 3), np.float32), 6)})
    assert out["Out"][0].rows.dtype == np.int64


@pytest.mark.parametrize("sparse_first", [True, False])
def test_mixed_inputs_scatter_add_into_dense(sparse_first):
    s = sr([5, 2, 5, 0])
    d = rng.rand(6, 3).astype(np.float32)
    pairs = [("s", s), ("d", d)] if sparse_first else [("d", d), ("s", s)]
    out = check_op("sum", {"X": pairs}, {}, {"Out": d + s.to_dense()})
    assert isinstance(out["Out"][0], pir.LoDTensor)


def _run(pairs):
    program, feed, out_args = build_one_op("sum", {"X": pairs})
    exe = pir.Executor()
    (value,) = exe.run(program, feed=feed, fetch_list=out_args["Out"], scope=pir.Scope())
    return program, exe.last_plan.choices[0], value, out_args["Out"][0]


@pytest.mark.parametrize("pairs, storage, var_type", [
    ([("a", sr([1])), ("b", sr([2]))], SELECTED_ROWS, SR_TYPE),
    ([("a", sr([1])), ("b", np.ones((6, 3), np.float32))], DENSE, pir.VarType.LOD_TENSOR),
    ([("a", np.ones((6, 3), np.float32)), ("b", sr([1]))], DENSE, pir.VarType.LOD_TENSOR),
    ([("a", np.ones((6, 3), np.float32)), ("b", np.ones((6, 3), np.float32))], DENSE,
     pir.VarType.LOD_TENSOR),
])
def test_duplicable_key_slot_selects_by_all_inputs(pairs, storage, var_type):
    # Regression test for the executor: the storage of a duplicable key slot is
    # selected_rows only when every value in it is a SelectedRows (not X[0]'s alone).
    program, choice, value, out_name = _run(pairs)
    assert choice.key.storage == (storage,)
    assert not choice.fallback
    assert program.global_block().var(out_name).type == var_type
    assert isinstance(value, pir.SelectedRows) == (storage == SELECTED_ROWS)


def test_out_keeps_the_first_dense_input_lod():
    x = pir.create_lod_tensor(rng.rand(5, 2).astype(np.float32), [[2, 3]])
    s = pir.SelectedRows([4], np.ones((1, 2), np.float32), 5)
    want = pir.create_lod_tensor(x.numpy() + s.to_dense(), [[2, 3]])
    check_op("sum", {"X": [("s", s), ("x", x)]}, {}, {"Out": want})


def test_shape_mismatch_fails_at_build_time():
    with pytest.raises(pir.ProgramError, match=r"(?s)\[ShapeInferenceError\].*sum.*"
                       r"same shape, got X\[0\] \[2, 3\] and X\[1\] \[2, 4\]"):
        build_one_op("sum", {"X": [("a", np.ones((2, 3))), ("b", np.ones((2, 4)))]})


def test_dtype_mismatch_fails_at_build_time():
    with pytest.raises(pir.ProgramError, match="(?s)same dtype.*hint: insert a cast op"):
        build_one_op("sum", {"X": [("a", np.ones(3, np.float32)),
                                   ("b", np.ones(3, np.float64))]})


def test_gradient_matches_finite_differences():
    xs = [("a", rng.rand(3, 4)), ("b", rng.rand(3, 4)), ("c", rng.rand(3, 4))]
    check_grad("sum", {"X": xs}, wrt=("X",))

"""split, stack, unbind, slice and strided_slice (ops/tensor/split_stack.py,
slice_op.py)."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import KernelError, PaddleIRError, ProgramError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(11)
X = rng.randn(4, 6, 3).astype(np.float32)


def _outs(n):
    return {"Out": n}


@pytest.mark.parametrize("attrs, cuts, axis", [
    ({"axis": 1, "num": 3}, [2, 4], 1),
    ({"axis": -1, "num": 3}, [1, 2], 2),
    ({"axis": 1, "sections": [1, 2, 3]}, [1, 3], 1),
    ({"axis": 0, "sections": [1, -1, 2]}, [1, 2], 0),
])
def test_split(attrs, cuts, axis):
    want = [np.array(p) for p in np.array_split(X.copy(), cuts, axis=axis)]
    n = len(want)
    check_op("split", {"X": X}, attrs, {"Out": want}, outputs=_outs(n))
    check_grad("split", {"X": X.astype(np.float64)}, attrs, outputs=_outs(n))


def test_split_axis_and_sections_from_tensors():
    want = [X[:, :1], X[:, 1:]]
    out = check_op("split", {"X": X, "AxisTensor": np.array([1], np.int32),
                             "SectionsTensorList": [("s0", np.array([1], np.int64)),
                                                    ("s1", np.array([5], np.int64))]},
                   {}, {"Out": want}, outputs=_outs(2))
    assert out["Out"][1].shape == (4, 5, 3)


def test_split_errors():
    with pytest.raises(pir.ProgramError, match=r"X.shape\[axis\]=6 does not divide into num=4"):
        check_op("split", {"X": X}, {"axis": 1, "num": 4}, outputs=_outs(4))
    with pytest.raises(pir.ProgramError, match=r"sections \[1, 2\] must add up to "
                                               r"X.shape\[axis\]=6"):
        check_op("split", {"X": X}, {"axis": 1, "sections": [1, 2]}, outputs=_outs(2))
    with pytest.raises(pir.ProgramError, match="split makes 3 parts but Out lists 2"):
        check_op("split", {"X": X}, {"axis": 1, "num": 3}, outputs=_outs(2))


@pytest.mark.parametrize("axis", [0, 1, -1, 3, -4])
def test_stack(axis):
    xs = [rng.randn(4, 6, 3).astype(np.float32) for _ in range(3)]
    want = np.stack([x.copy() for x in xs], axis=axis)
    check_op("stack", {"X": [(f"x{i}", x) for i, x in enumerate(xs)]}, {"axis": axis},
             {"Y": want})
    check_grad("stack", {"X": [(f"x{i}", x) for i, x in enumerate(xs)]}, {"axis": axis},
               out_slot="Y")


def test_stack_errors():
    xs = [("a", X), ("b", X[:, :2])]
    with pytest.raises(pir.ProgramError, match=r"all inputs must have one shape, but a has "
                                               r"\[4, 6, 3\] and b has \[4, 2, 3\]"):
        check_op("stack", {"X": xs}, {"axis": 0})
    with pytest.raises(pir.ProgramError, match=r"axis must be in \[-4, 4\)"):
        check_op("stack", {"X": [("a", X)]}, {"axis": 4})


@pytest.mark.parametrize("attrs, index", [
    ({"axes": [1], "starts": [1], "ends": [4]}, np.s_[:, 1:4]),
    ({"axes": [0, 2], "starts": [-3, 0], "ends": [-1, 2]}, np.s_[1:3, :, 0:2]),
    ({"axes": [1], "starts": [2], "ends": [2147483647]}, np.s_[:, 2:]),
    ({"axes": [1], "starts": [-100], "ends": [100]}, np.s_[:, :]),
    ({"axes": [1], "starts": [4], "ends": [2]}, np.s_[:, 4:4]),
    ({"axes": [0, 1], "starts": [1, 2], "ends": [2, 3], "decrease_axis": [0]}, np.s_[1, 2:3]),
    ({"axes": [0, 1, 2], "starts": [1, 2, 0], "ends": [2, 3, 1], "decrease_axis": [0, 1, 2]},
     np.s_[1, 2, 0]),
])
def test_slice(attrs, index):
    want = np.array(X[index])
    check_op("slice", {"Input": X}, attrs, {"Out": want})
    if want.size:
        check_grad("slice", {"Input": X.astype(np.float64)}, attrs, wrt=("Input",))


def test_slice_from_tensors():
    want = X[1:3, :, -2:]
    check_op("slice", {"Input": X, "StartsTensor": np.array([1, -2], np.int64),
                       "EndsTensor": np.array([3, 10], np.int64)},
             {"axes": [0, 2], "starts": [0, 0], "ends": [1, 1]}, {"Out": want})
    check_op("slice", {"Input": X, "StartsTensorList": [("s0", np.array([1], np.int32)),
                                                        ("s1", np.array([-2], np.int32))]},
             {"axes": [0, 2], "ends": [3, 10]}, {"Out": want})
    check_grad("slice", {"Input": X.astype(np.float64),
                         "StartsTensor": np.array([1, -2], np.int64)},
               {"axes": [0, 2], "ends": [3, 10]}, wrt=("Input",))


def test_slice_keeps_lod_unless_rows_are_cut():
    x = pir.create_lod_tensor(X.reshape(4, 18), [[1, 3]])
    want = pir.create_lod_tensor(X.reshape(4, 18)[:, 2:5], [[1, 3]])
    check_op("slice", {"Input": x}, {"axes": [1], "starts": [2], "ends": [5]}, {"Out": want})


def test_slice_errors():
    with pytest.raises(pir.ProgramError, match=r"decrease_axis drops axis 1, which must come "
                                               r"out of size 1, but the slice gives 3"):
        check_op("slice", {"Input": X}, {"axes": [1], "starts": [0], "ends": [3],
                                         "decrease_axis": [1]})
    with pytest.raises(pir.ProgramError, match=r"axes \[3\] hold 3, outside \[-3, 3\)"):
        check_op("slice", {"Input": X}, {"axes": [3], "starts": [0], "ends": [1]})
    with pytest.raises(pir.ProgramError, match=r"starts \[0, 1\] must give one value per axis"):
        check_op("slice", {"Input": X}, {"axes": [1], "starts": [0, 1], "ends": [1]})


def test_concat_axis_tensor():
    a, b = X, rng.randn(4, 2, 3).astype(np.float32)
    want = np.concatenate([a, b], axis=1)
    check_op("concat", {"X": [("a", a), ("b", b)], "AxisTensor": np.array([1], np.int64)},
             {"axis": 0}, {"Out": want})
    check_grad("concat", {"X": [("a", a), ("b", b)], "AxisTensor": np.array([1], np.int64)},
               {"axis": 0})


def test_strided_slice():
    x = rng.uniform(-1, 1, (5, 6, 3))
    attrs = {"axes": [0, 1], "starts": [4, 1], "ends": [0, 6], "strides": [-2, 2]}
    check_op("strided_slice", {"Input": x}, attrs, {"Out": x[4:0:-2, 1:6:2]})
    check_grad("strided_slice", {"Input": x}, attrs, wrt=("Input",))


def test_unbind():
    x = rng.uniform(-1, 1, (2, 3, 4))
    check_op("unbind", {"X": x}, {"axis": 1}, {"Out": [x[:, k, :] for k in range(3)]},
             outputs={"Out": 3})
    check_grad("unbind", {"X": x}, {"axis": -1}, outputs={"Out": 4})
    with pytest.raises(ProgramError, match="unbind needs X.shape\\[1\\] = 3 outputs Out"):
        check_op("unbind", {"X": x}, {"axis": 1}, outputs={"Out": 2})


F = np.ones((2, 3))


ERROR_CASES = [
    ("strided_slice", {"Input": F}, {"axes": [0], "starts": [0], "ends": [1],
                                     "strides": [0]}, "strides must not be 0"),
    ("strided_slice", {"Input": F}, {"axes": [0], "starts": [0], "ends": [1], "strides": []},
     "axes, starts, ends and strides must have one length"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)


@pytest.mark.parametrize("inputs", [
    {"StartsTensor": np.array([1, 4], np.int32), "EndsTensor": np.array([3, 0], np.int32),
     "StridesTensor": np.array([1, -2], np.int32)},
    {"StartsTensorList": [("s0", np.array([1], np.int64)), ("s1", np.array([4], np.int64))],
     "EndsTensorList": [("e0", np.array([3], np.int64)), ("e1", np.array([0], np.int64))],
     "StridesTensorList": [("t0", np.array([1], np.int64)), ("t1", np.array([-2], np.int64))]},
])
def test_strided_slice_takes_starts_ends_strides_from_tensors(inputs):
    x = np.random.RandomState(8).rand(4, 6)
    attrs = {"axes": [0, 1], "starts": [0, 0], "ends": [1, 1], "strides": [1, 1]}
    check_op("strided_slice", {"Input": x, **inputs}, attrs, {"Out": x[1:3, 4:0:-2]})
    check_grad("strided_slice", {"Input": x, **inputs}, attrs, wrt=("Input",))


def test_strided_slice_stride_0_from_a_tensor_is_refused_when_it_runs():
    with pytest.raises(KernelError, match="no stride 0"):
        check_op("strided_slice", {"Input": np.ones((3, 3)),
                                   "StridesTensor": np.array([0], np.int32)},
                 {"axes": [0], "starts": [0], "ends": [2], "strides": [1]})

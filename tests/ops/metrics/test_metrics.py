"""accuracy and auc (ops/metrics/accuracy.py, auc.py)."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(6)


def _distinct(*shape):
    """Values without ties, so that the top-k order is unique."""
    return rng.permutation(int(np.prod(shape))).reshape(shape).astype(np.float64) / 7


def _top_k_ref(x, k):
    rows = x.reshape(-1, x.shape[-1])
    idx = [sorted(range(len(r)), key=lambda j, r=r: -r[j])[:k] for r in rows.tolist()]
    idx = np.array(idx, np.int64).reshape(x.shape[:-1] + (k,))
    return np.take_along_axis(x, idx, axis=-1), idx


@pytest.mark.parametrize("shape, k", [((4, 6), 1), ((4, 6), 3), ((2, 3, 5), 5), ((7,), 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_top_k(shape, k, dtype):
    x = (_distinct(*shape) * 7).astype(dtype)
    values, indices = _top_k_ref(x, k)
    check_op("top_k", {"X": x}, {"k": k}, {"Out": values, "Indices": indices},
             batch_unknown=True)


@pytest.mark.parametrize("shape, k", [((4, 6), 2), ((2, 3, 5), 5)])
def test_top_k_gradient(shape, k):
    check_grad("top_k", {"X": _distinct(*shape)}, {"k": k})


def test_top_k_keeps_lod():
    x = pir.create_lod_tensor(_distinct(3, 4).astype(np.float32), [[1, 2]])
    values, indices = _top_k_ref(x.numpy(), 2)
    check_op("top_k", {"X": x}, {"k": 2}, {"Out": pir.create_lod_tensor(values, [[1, 2]]),
                                           "Indices": pir.create_lod_tensor(indices, [[1, 2]])})


def test_top_k_errors():
    with pir.program_guard(pir.Program(), pir.Program()):
        x = pir.layers.data("x", [-1, 4])
        with pytest.raises(pir.ProgramError, match=r"k must not exceed X's last dim, got k=5 "
                                                   r"for X.shape=\[-1, 4\]"):
            pir.layers.topk(x, 5)
        with pytest.raises(pir.ProgramError, match=r"k must be at least 1, got 0"):
            pir.layers.topk(x, 0)


def _accuracy_ref(pred, label, k):
    hits = 0
    for row, lab in zip(pred.tolist(), label.reshape(-1).tolist(), strict=True):
        best = sorted(range(len(row)), key=lambda j, row=row: -row[j])[:k]
        hits += lab in best
    return hits


@pytest.mark.parametrize("k", [1, 2])
def test_accuracy_op(k):
    pred = _distinct(6, 4).astype(np.float32)
    label = rng.randint(0, 4, size=(6, 1)).astype(np.int64)
    values, indices = _top_k_ref(pred, k)
    hits = _accuracy_ref(pred, label, k)
    out = check_op("accuracy", {"Out": values, "Indices": indices, "Label": label}, {},
                   {"Accuracy": np.array([hits / 6], np.float32),
                    "Correct": np.array([hits], np.int32), "Total": np.array([6], np.int32)},
                   outputs={"Accuracy": 1, "Correct": 1, "Total": 1}, batch_unknown=True)
    assert out["Accuracy"][0].shape == (1,)  # Fluid 1.x's shape


def test_accuracy_of_an_empty_batch_is_zero():
    empty = np.zeros((0, 1), np.float32)
    check_op("accuracy", {"Out": empty, "Indices": empty.astype(np.int64),
                          "Label": np.zeros((0, 1), np.int64)}, {},
             {"Accuracy": np.array([0], np.float32)})


def test_accuracy_layer():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [-1, 5])
        label = pir.layers.data("label", [-1, 1], dtype="int64")
        acc1 = pir.layers.accuracy(x, label)
        acc3 = pir.layers.accuracy(x, label, k=3)
    assert [op.type for op in main.global_block().ops] == ["top_k", "accuracy"] * 2
    assert acc1.shape == (1,) and acc1.dtype == np.float32
    pred = _distinct(8, 5).astype(np.float32)
    lab = rng.randint(0, 5, size=(8, 1)).astype(np.int64)
    got = pir.Executor().run(main, feed={"x": pred, "label": lab}, fetch_list=[acc1, acc3],
                             scope=pir.Scope())
    assert got[0][0] == np.float32(_accuracy_ref(pred, lab, 1) / 8)
    assert got[1][0] == np.float32(_accuracy_ref(pred, lab, 3) / 8)


def test_accuracy_shape_errors():
    with pir.program_guard(pir.Program(), pir.Program()):
        x = pir.layers.data("x", [4, 5], append_batch_size=False)
        label = pir.layers.data("label", [3, 1], dtype="int64", append_batch_size=False)
        with pytest.raises(pir.ProgramError, match=r"Label must be \[N, 1\] with N = "
                                                   r"Indices.shape\[0\] = 4, got \[3, 1\]"):
            pir.layers.accuracy(x, label)


I64 = np.array([[0], [1]], np.int64)


ERROR_CASES = [
    ("auc", {"Predict": np.full((2, 2), 0.5, np.float32), "Label": I64,
             "StatPos": np.zeros((1, 3), np.int64), "StatNeg": np.zeros((1, 3), np.int64)},
     {"num_thresholds": 2, "slide_steps": 0, "curve": "PR"}, "curve must be 'ROC'"),
    ("auc", {"Predict": np.full((2, 2), 0.5, np.float32), "Label": np.ones((3, 1), np.int64),
             "StatPos": np.zeros((1, 3), np.int64), "StatNeg": np.zeros((1, 3), np.int64)},
     {"num_thresholds": 2, "slide_steps": 0}, "Predict and Label must have the same rows"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)

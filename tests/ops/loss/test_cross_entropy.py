"""cross_entropy and softmax_with_cross_entropy (+ grads) through the op harness."""

import math

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import KernelError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(4)


def _probs(n, d):
    p = rng.uniform(0.1, 1.0, size=(n, d))
    return p / p.sum(axis=1, keepdims=True)


def _hard_ce_ref(x, label, ignore_index=-100):
    rows = [0.0 if lab == ignore_index else -math.log(x[i, lab])
            for i, lab in enumerate(label.reshape(-1).tolist())]
    return np.array(rows).reshape(-1, 1)


# --- cross_entropy ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cross_entropy_hard_labels(dtype):
    x = _probs(5, 4).astype(dtype)
    label = np.array([[0], [3], [1], [-100], [2]], np.int64)
    want = _hard_ce_ref(x.astype(np.float64), label).astype(dtype)
    check_op("cross_entropy", {"X": x, "Label": label}, {}, {"Y": want}, batch_unknown=True)


def test_cross_entropy_custom_ignore_index_and_leading_dims():
    x = _probs(6, 3).reshape(2, 3, 3)
    label = np.array([0, 2, 1, 1, 0, 2], np.int64).reshape(2, 3, 1)
    want = _hard_ce_ref(x.reshape(6, 3), label, ignore_index=1).reshape(2, 3, 1)
    check_op("cross_entropy", {"X": x, "Label": label}, {"ignore_index": 1}, {"Y": want})


def test_cross_entropy_soft_labels():
    x, label = _probs(4, 5), _probs(4, 5)
    want = np.array([[-sum(label[i, j] * math.log(x[i, j]) for j in range(5))]
                     for i in range(4)])
    check_op("cross_entropy", {"X": x, "Label": label}, {"soft_label": True}, {"Y": want})


@pytest.mark.parametrize("soft", [False, True])
def test_cross_entropy_gradient(soft):
    x = _probs(4, 3)
    label = _probs(4, 3) if soft else np.array([[2], [-100], [0], [1]], np.int64)
    check_grad("cross_entropy", {"X": x, "Label": label}, {"soft_label": soft}, out_slot="Y")


def test_ignored_rows_get_no_gradient():
    x = _probs(2, 3)
    label = np.array([[-100], [1]], np.int64)
    check_op("cross_entropy_grad", {"X": x, "Label": label, "Y@GRAD": np.ones((2, 1))},
             {}, {"X@GRAD": np.array([[0, 0, 0], [0, -1 / x[1, 1], 0]])},
             outputs={"X@GRAD": 1})


def test_cross_entropy_label_out_of_range_is_a_kernel_error_naming_the_op():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [-1, 3])
        label = pir.layers.data("label", [-1, 1], dtype="int64")
        loss = pir.layers.cross_entropy(x, label)
    exe = pir.Executor()
    feed = {"x": _probs(3, 3).astype(np.float32), "label": np.array([[0], [3], [7]], np.int64)}
    pattern = (r"(?s)\[KernelError\] block 0, op #0 cross_entropy \(X=x, Label=label -> "
               r"Y=cross_entropy_0.tmp_0\):\n  cross_entropy: Label\[1\] = 3 is outside the "
               r"class range \[0, 3\); 2 label\(s\) out of range.*op created at "
               r"tests/ops/loss/test_cross_entropy.py")
    for _ in range(2):  # the first run (compiling the plan) and a cached one report alike
        with pytest.raises(KernelError, match=pattern):
            exe.run(main, feed=feed, fetch_list=[loss], scope=pir.Scope())
    feed["label"] = np.array([[0], [-1], [2]], np.int64)
    with pytest.raises(KernelError, match=r"Label\[1\] = -1 is outside"):
        exe.run(main, feed=feed, fetch_list=[loss], scope=pir.Scope())


@pytest.mark.parametrize("label_shape, dtype, soft, message", [
    ([-1, 2], "int64", False, r"Label must have shape \[-1, 1\] for X.shape=\[-1, 3\] with "
                              r"soft_label=False, got \[-1, 2\]"),
    ([-1, 1], "float32", False, r"hard labels must be integers \(int64\), got float32.*"
                                r"hint: pass soft_label=True"),
    ([-1, 3], "int64", True, r"soft labels must have X's dtype float32, got int64"),
])
def test_cross_entropy_label_checks_at_build_time(label_shape, dtype, soft, message):
    with pir.program_guard(pir.Program(), pir.Program()):
        x = pir.layers.data("x", [-1, 3])
        label = pir.layers.data("label", label_shape, dtype=dtype, append_batch_size=False)
        with pytest.raises(pir.ProgramError, match="(?s)" + message):
            pir.layers.cross_entropy(x, label, soft_label=soft)


# --- softmax_with_cross_entropy --------------------------------------------------------------


def _log_softmax_ref(z, axis):
    z = z.astype(np.float64)
    m = z.max(axis=axis, keepdims=True)
    return z - m - np.log(np.exp(z - m).sum(axis=axis, keepdims=True))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_swce_hard_labels(dtype):
    logits = (rng.randn(5, 4) * 3).astype(dtype)
    label = np.array([[1], [0], [-100], [3], [2]], np.int64)
    softmax = np.exp(_log_softmax_ref(logits, -1))
    loss = _hard_ce_ref(softmax, label)
    check_op("softmax_with_cross_entropy", {"Logits": logits, "Label": label}, {},
             {"Softmax": softmax.astype(dtype), "Loss": loss.astype(dtype)},
             batch_unknown=True, rtol=1e-5, atol=1e-6)


def test_swce_soft_labels_along_axis_1():
    logits = rng.randn(2, 4, 3)
    label = rng.uniform(size=(2, 4, 3))
    label /= label.sum(axis=1, keepdims=True)
    log_sm = _log_softmax_ref(logits, 1)
    want = -(label * log_sm).sum(axis=1, keepdims=True)
    check_op("softmax_with_cross_entropy", {"Logits": logits, "Label": label},
             {"soft_label": True, "axis": 1}, {"Softmax": np.exp(log_sm), "Loss": want})


def test_swce_is_stable_for_huge_logits():
    logits = np.array([[1e4, 0.0, -1e4], [-1e4, -1e4, 1e4]], np.float32)
    label = np.array([[1], [2]], np.int64)
    check_op("softmax_with_cross_entropy", {"Logits": logits, "Label": label}, {},
             {"Softmax": np.array([[1, 0, 0], [0, 0, 1]], np.float32),
              "Loss": np.array([[1e4], [0]], np.float32)})


@pytest.mark.parametrize("soft, axis", [(False, -1), (True, -1), (False, 0), (True, 1)])
def test_swce_gradient(soft, axis):
    logits = rng.randn(3, 4, 2)
    if soft:
        label = rng.uniform(size=logits.shape)
    else:
        shape = list(logits.shape)
        shape[axis] = 1
        label = rng.randint(0, logits.shape[axis], size=shape).astype(np.int64)
        label.reshape(-1)[0] = -100
    check_grad("softmax_with_cross_entropy", {"Logits": logits, "Label": label},
               {"soft_label": soft, "axis": axis}, wrt=("Logits",), out_slot="Loss")


def test_swce_label_out_of_range():
    logits = rng.randn(2, 3).astype(np.float32)
    with pytest.raises(KernelError, match=r"softmax_with_cross_entropy: Label\[0\] = 5 is "
                                          r"outside the class range \[0, 3\)"):
        check_op("softmax_with_cross_entropy",
                 {"Logits": logits, "Label": np.array([[5], [0]], np.int64)}, {}, {})


def test_swce_layer_returns_softmax_on_request():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        logits = pir.layers.data("logits", [-1, 4])
        label = pir.layers.data("label", [-1, 1], dtype="int64")
        loss, softmax = pir.layers.softmax_with_cross_entropy(logits, label,
                                                              return_softmax=True)
        only_loss = pir.layers.softmax_with_cross_entropy(logits, label)
    assert loss.shape == (-1, 1) and softmax.shape == (-1, 4) and only_loss.shape == (-1, 1)
    z = rng.randn(3, 4).astype(np.float32)
    lab = np.array([[0], [1], [3]], np.int64)
    got = pir.Executor().run(main, feed={"logits": z, "label": lab},
                             fetch_list=[loss, softmax], scope=pir.Scope())
    log_sm = _log_softmax_ref(z, -1)
    np.testing.assert_allclose(got[0], -np.take_along_axis(log_sm, lab, 1), rtol=1e-5)
    np.testing.assert_allclose(got[1], np.exp(log_sm), rtol=1e-5)


# --- cross_entropy2: Fluid 1.6+'s hard-label cross_entropy ----------------------------------

def _cross_entropy2_case(shape=(5, 4), ignore=-100):
    r = np.random.RandomState(21)
    x = r.uniform(0.1, 1.0, shape)
    x /= x.sum(-1, keepdims=True)
    label = r.randint(0, shape[-1], shape[:-1] + (1,)).astype(np.int64)
    return x, label


@pytest.mark.parametrize("shape", [(5, 4), (2, 3, 4)])
def test_cross_entropy2_matches_numpy_and_its_gradient(shape):
    x, label = _cross_entropy2_case(shape)
    match = np.take_along_axis(x, label, axis=-1)
    got = check_op("cross_entropy2", {"X": x, "Label": label}, {},
                   {"Y": -np.log(match), "MatchX": match})
    assert got["XShape"][0].shape == (0,) + shape
    check_grad("cross_entropy2", {"X": x, "Label": label}, wrt=("X",), out_slot="Y")


def test_cross_entropy2_ignored_rows_get_no_loss_and_no_gradient():
    x, label = _cross_entropy2_case()
    label[[1, 3]] = 7
    match = np.take_along_axis(x, np.where(label == 7, 0, label), axis=-1)
    want = -np.log(match)
    want[[1, 3]] = 0
    match[[1, 3]] = 0
    check_op("cross_entropy2", {"X": x, "Label": label}, {"ignore_index": 7},
             {"Y": want, "MatchX": match})
    check_grad("cross_entropy2", {"X": x, "Label": label}, {"ignore_index": 7}, wrt=("X",),
               out_slot="Y")


def test_cross_entropy2_label_out_of_range_is_named():
    x, label = _cross_entropy2_case()
    label[2] = 4
    with pytest.raises(KernelError, match=r"cross_entropy2: Label\[2\] = 4 is outside"):
        check_op("cross_entropy2", {"X": x, "Label": label})

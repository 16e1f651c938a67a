"""sigmoid_cross_entropy_with_logits: values, ignore_index, normalize, gradient."""

import numpy as np
import pytest

import paddle_ir as pir
from tests.op_test import build_one_op, check_grad, check_op

rng = np.random.RandomState(0)
X = (rng.randn(4, 5) * 4).astype(np.float32)
LABEL = (rng.rand(4, 5) > 0.5).astype(np.float32)


def reference(x, z):
    p = 1.0 / (1.0 + np.exp(-x.astype(np.float64)))
    return -(z * np.log(p) + (1 - z) * np.log(1 - p))


def test_matches_the_log_likelihood_form():
    check_op("sigmoid_cross_entropy_with_logits", {"X": X, "Label": LABEL}, {},
             {"Out": reference(X, LABEL).astype(np.float32)}, rtol=1e-5, atol=1e-6)


def test_large_logits_do_not_overflow():
    x = np.array([[-1000.0, 1000.0, 0.0]], np.float32)
    z = np.array([[1.0, 1.0, 0.5]], np.float32)
    check_op("sigmoid_cross_entropy_with_logits", {"X": x, "Label": z}, {},
             {"Out": np.array([[1000.0, 0.0, np.log(2.0)]], np.float32)})


@pytest.mark.parametrize("normalize", [False, True])
def test_ignore_index_and_normalize(normalize):
    z = LABEL.copy()
    z[0, :3] = -1
    want = reference(X, z)
    want[z == -1] = 0
    if normalize:
        want /= (z != -1).sum()
    check_op("sigmoid_cross_entropy_with_logits", {"X": X, "Label": z},
             {"ignore_index": -1, "normalize": normalize},
             {"Out": want.astype(np.float32)}, rtol=1e-5, atol=1e-6)


def test_out_keeps_x_lod():
    x = pir.create_lod_tensor(X, [[1, 3]])
    want = pir.create_lod_tensor(reference(X, LABEL).astype(np.float32), [[1, 3]])
    check_op("sigmoid_cross_entropy_with_logits", {"X": x, "Label": LABEL}, {}, {"Out": want},
             rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("attrs", [{}, {"ignore_index": 0, "normalize": True}])
def test_gradient_matches_finite_differences(attrs):
    z = rng.rand(3, 4)
    z[1, 1] = 0.0
    check_grad("sigmoid_cross_entropy_with_logits", {"X": rng.randn(3, 4), "Label": z}, attrs)


def test_label_shape_must_match():
    with pytest.raises(pir.ProgramError, match=r"Label must have X's shape, got X \[4, 5\] "
                       r"and Label \[4, 1\]"):
        build_one_op("sigmoid_cross_entropy_with_logits",
                     {"X": X, "Label": np.zeros((4, 1), np.float32)})


def test_layer():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [-1, 5])
        z = pir.layers.data("z", [-1, 5])
        out = pir.layers.sigmoid_cross_entropy_with_logits(x, z, ignore_index=-1)
    assert out.shape == (-1, 5)
    (got,) = pir.Executor().run(main, feed={"x": X, "z": LABEL}, fetch_list=[out],
                                scope=pir.Scope())
    np.testing.assert_allclose(got, reference(X, LABEL), rtol=1e-5, atol=1e-6)

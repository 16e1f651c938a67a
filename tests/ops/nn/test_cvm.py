"""cvm (ops/nn/cvm.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_op

rng = np.random.RandomState(37)


def test_cvm():
    x = rng.uniform(0, 3, (4, 5))
    cvm = rng.uniform(0, 1, (4, 2))
    want = x.copy()
    want[:, 0] = np.log(x[:, 0] + 1)
    want[:, 1] = np.log(x[:, 1] + 1) - np.log(x[:, 0] + 1)
    check_op("cvm", {"X": x, "CVM": cvm}, {"use_cvm": True}, {"Y": want})
    check_op("cvm", {"X": x, "CVM": cvm}, {"use_cvm": False}, {"Y": x[:, 2:]})


ERROR_CASES = [
    ("cvm", {"X": np.ones(3), "CVM": np.ones((3, 2))}, {}, r"X must be \[N, D\]"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)



@pytest.mark.parametrize("use_cvm", [True, False])
def test_cvm_gradient_follows_paddles_rule(use_cvm):
    """Paddle's cvm_grad is not the derivative: the show and click columns of dX take the
    CVM input's values (a CTR convention), the others take dY."""
    import paddle_ir as pir
    from paddle_ir.passes.backward import append_backward
    x = rng.uniform(0, 3, (4, 5)).astype(np.float32)
    cvm = rng.uniform(0, 1, (4, 2)).astype(np.float32)
    weights = rng.uniform(-1, 1, (4, 5 if use_cvm else 3)).astype(np.float32)
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        xv = pir.layers.data("x", [4, 5], dtype="float32", append_batch_size=False)
        xv.stop_gradient = False
        cv = pir.layers.data("c", [4, 2], dtype="float32", append_batch_size=False)
        w = pir.layers.data("w", list(weights.shape), dtype="float32", append_batch_size=False)
        y = pir.layers.continuous_value_model(xv, cv, use_cvm=use_cvm)
        loss = pir.layers.reduce_sum(y * w)
        append_backward(loss)
    dx, = pir.Executor().run(main, feed={"x": x, "c": cvm, "w": weights},
                             fetch_list=["x@GRAD"], scope=pir.Scope())
    want = np.concatenate([cvm, weights[:, 2:] if use_cvm else weights], axis=1)
    np.testing.assert_allclose(dx, want, rtol=1e-6)

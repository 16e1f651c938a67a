"""Regressions of the op-test harness itself (tests/op_test.py)."""

import numpy as np

import paddle_ir as pir
from tests.op_test import check_grad


def test_check_grad_handles_an_output_that_carries_lod():
    """check_grad used to re-run the whole block, grad ops included, to learn the output's
    LoD, and failed there for want of the upstream gradient it was about to feed."""
    x = pir.create_lod_tensor(np.random.RandomState(0).rand(5, 2), [[2, 3]])
    check_grad("elementwise_mul", {"X": x, "Y": np.random.RandomState(1).rand(2) + 0.5}, {},
               wrt=("X", "Y"))

"""Small Fluid 1.x top-level names real programs touch: fluid.average.WeightedAverage,
fluid.in_dygraph_mode(), fluid.require_version(...), fluid.Tensor, fluid.backward."""

import numpy as np
import pytest

import paddle_ir.fluid as fluid
from paddle_ir.core.errors import PaddleIRError


def test_weighted_average_over_batches():
    avg = fluid.average.WeightedAverage()
    for acc, n in ((np.array([0.5], "float32"), 10), (0.75, 30), (np.float32(1.0), 20)):
        avg.add(value=acc, weight=n)
    assert avg.eval() == pytest.approx((0.5 * 10 + 0.75 * 30 + 1.0 * 20) / 60)
    avg.reset()
    with pytest.raises(PaddleIRError, match="nothing was added since the last reset"):
        avg.eval()
    with pytest.raises(PaddleIRError, match="weight must be one number"):
        avg.add(1.0, np.ones(2))
    with pytest.raises(PaddleIRError, match="value must be a finite number"):
        avg.add(float("nan"), 1)


def test_static_mode_and_version_checks():
    assert fluid.in_dygraph_mode() is False
    fluid.require_version("1.6.0")
    fluid.require_version(min_version="1.5", max_version="1.7.2")
    with pytest.raises(PaddleIRError, match=r"requires Fluid >= 2.0.0; paddle-ir provides "
                                            r"the Fluid 1.7.2 API"):
        fluid.require_version("2.0.0")
    with pytest.raises(PaddleIRError, match="<= 1.5.0"):
        fluid.require_version("1.0.0", "1.5.0")
    with pytest.raises(PaddleIRError, match="version strings like '1.6.0'"):
        fluid.require_version("one")


def test_tensor_alias_and_backward_module():
    t = fluid.Tensor()
    t.set(np.ones((2, 3), "float32"), fluid.CPUPlace())
    assert np.array(t).shape == (2, 3)
    assert fluid.backward.append_backward is fluid.append_backward

"""How the executor treats what kernels return and raise (regressions found while adding ops)."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import KernelError
from paddle_ir.ops.registry import KernelKey, get_op_def
from tests.op_test import check_op


def test_numpy_scalar_from_a_0d_input_is_a_0d_array():
    # numpy ufuncs return scalars for 0-D arrays; `mean(x) * 3` must still work.
    x = np.array(2.0, np.float32)
    check_op("scale", {"X": x}, {"scale": 3.0}, {"Out": np.array(6.0, np.float32)})
    check_op("elementwise_add", {"X": x, "Y": x}, {}, {"Out": np.array(4.0, np.float32)})


def _one_scale_program():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [2], append_batch_size=False)
        out = pir.layers.scale(x, 2.0)
    return main, out


@pytest.mark.parametrize("error, message", [(IndexError, "index 5 is out of bounds"),
                                            (KernelError, "a message from the kernel")])
def test_kernel_failures_name_the_op_on_first_and_later_runs(monkeypatch, error, message):
    kernel = get_op_def("scale").find_kernel(KernelKey(("dense",), np.dtype(np.float32)))

    def failing(attrs, x, *tensor_attrs):  # scale's ScaleTensor slot comes after X
        if x[0] < 0:
            raise error(message)
        return x * attrs["scale"]

    monkeypatch.setattr(kernel, "fn", failing)
    main, out = _one_scale_program()
    exe = pir.Executor()
    good, bad = np.ones(2, np.float32), -np.ones(2, np.float32)
    # A stray exception is shown with the inputs' shapes (X=x[2]), a KernelError as raised.
    pattern = (r"(?s)\[KernelError\] block 0, op #0 scale \(X=x(\[2\])? -> Out=scale_0.tmp_0\).*"
               + message + r".*op created at tests/ops/test_kernel_contract.py")
    with pytest.raises(KernelError, match=pattern):  # the first run compiles the plan
        exe.run(main, feed={"x": bad}, fetch_list=[out], scope=pir.Scope())
    exe.run(main, feed={"x": good}, fetch_list=[out], scope=pir.Scope())
    with pytest.raises(KernelError, match=pattern):  # a cached plan
        exe.run(main, feed={"x": bad}, fetch_list=[out], scope=pir.Scope())
